import { ApiError } from './errors.js';
import {
  computePodQOSClass,
  getPodQOSClass,
  isMirrorPod,
  isRestartableInitContainer,
  isStaticPod,
  podFullName,
  resolveContainerPort,
} from './helpers.js';
import type { ResourceRequirements } from './schemas.js';
import { newPod } from './testing/builders.js';

const withResources = (...resources: Array<ResourceRequirements | undefined>) =>
  newPod({ containers: resources.map((r, i) => ({ name: `c${i}`, ...(r ? { resources: r } : {}) })) });

describe('computePodQOSClass', () => {
  it('is BestEffort when no container sets cpu or memory', () => {
    expect(computePodQOSClass(withResources(undefined, { limits: { 'example.com/gpu': '1' } }))).toBe('BestEffort');
  });

  it('is Guaranteed when every container has equal cpu and memory requests and limits', () => {
    const pod = withResources(
      { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1024Mi' } },
      { limits: { cpu: '500m', memory: '64Mi' } },
    );
    expect(computePodQOSClass(pod)).toBe('Guaranteed');
  });

  it('is Burstable when a container lacks a memory limit or requests differ from limits', () => {
    expect(computePodQOSClass(withResources({ limits: { cpu: '1' }, requests: { cpu: '1' } }))).toBe('Burstable');
    expect(computePodQOSClass(withResources({ limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m', memory: '1Gi' } }))).toBe(
      'Burstable',
    );
    expect(computePodQOSClass(withResources({ requests: { memory: '1Gi' } }))).toBe('Burstable');
  });

  it('counts init containers: a best-effort init container makes a guaranteed pod Burstable', () => {
    const pod = withResources({ limits: { cpu: '1', memory: '1Gi' } });
    pod.spec.initContainers = [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '100m' } } }];
    expect(computePodQOSClass(pod)).toBe('Burstable');
  });

  it('prefers the class recorded in the status, as upstream GetPodQOS', () => {
    const pod = withResources(undefined);
    pod.status = { qosClass: 'Guaranteed' };
    expect(getPodQOSClass(pod)).toBe('Guaranteed');
    expect(computePodQOSClass(pod)).toBe('BestEffort');
  });
});

describe('pod helpers', () => {
  it('podFullName is <name>_<namespace>', () => {
    expect(podFullName(newPod({ name: 'web', namespace: 'kube-system' }))).toBe('web_kube-system');
  });

  it('recognises sidecars, static pods and mirror pods by upstream markers', () => {
    expect(isRestartableInitContainer({ restartPolicy: 'Always' })).toBe(true);
    expect(isRestartableInitContainer({})).toBe(false);
    expect(isStaticPod(newPod({ annotations: { 'kubernetes.io/config.source': 'file' } }))).toBe(true);
    expect(isStaticPod(newPod({ annotations: { 'kubernetes.io/config.source': 'api' } }))).toBe(false);
    expect(isMirrorPod(newPod({ annotations: { 'kubernetes.io/config.mirror': 'abc' } }))).toBe(true);
    expect(isMirrorPod(newPod())).toBe(false);
  });

  it('resolveContainerPort maps named ports, numeric strings and numbers', () => {
    const container = { name: 'web', ports: [{ name: 'http', containerPort: 8080 }] };
    expect(resolveContainerPort('http', container)).toBe(8080);
    expect(resolveContainerPort('9090', container)).toBe(9090);
    expect(resolveContainerPort(80, container)).toBe(80);
    expect(() => resolveContainerPort('metrics', container)).toThrow(ApiError);
    expect(() => resolveContainerPort(70000, container)).toThrow(/invalid port number: 70000/);
  });
});
