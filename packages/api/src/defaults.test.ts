import { applyPodDefaults, defaultImagePullPolicy } from './defaults.js';
import { isUntaggedImage, parseImageReference } from './image.js';
import type { Pod } from './schemas.js';
import { PodSchema } from './schemas.js';

const pod = (spec: unknown, metadata: unknown = { name: 'p' }): Pod => PodSchema.parse({ metadata, spec });

describe('applyPodDefaults', () => {
  it('fills the pod-level defaults of upstream SetDefaults_PodSpec and the namespace', () => {
    const out = applyPodDefaults(pod({ containers: [{ name: 'a', image: 'nginx:1.25' }] }));
    expect(out.metadata.namespace).toBe('default');
    expect(out.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
    });
    expect(out.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
  });

  it('keeps values that are set, including zero grace period and enableServiceLinks false', () => {
    const out = applyPodDefaults(
      pod(
        {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          enableServiceLinks: false,
          containers: [{ name: 'a', image: 'x', imagePullPolicy: 'Never' }],
        },
        { name: 'p', namespace: 'ns' },
      ),
    );
    expect(out.metadata.namespace).toBe('ns');
    expect(out.spec.restartPolicy).toBe('Never');
    expect(out.spec.terminationGracePeriodSeconds).toBe(0);
    expect(out.spec.enableServiceLinks).toBe(false);
    expect(out.spec.containers[0]?.imagePullPolicy).toBe('Never');
  });

  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['localhost:5000/nginx', 'Always'],
    ['nginx:1.25', 'IfNotPresent'],
    ['localhost:5000/nginx:1.25', 'IfNotPresent'],
    ['nginx@sha256:abcd', 'IfNotPresent'],
    ['nginx:latest@sha256:abcd', 'Always'],
  ])('pull policy for %s is %s', (image, policy) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });

  it('splits image references without mistaking a registry port for a tag', () => {
    expect(parseImageReference('localhost:5000/a/b:v1@sha256:ff')).toEqual({
      repository: 'localhost:5000/a/b',
      tag: 'v1',
      digest: 'sha256:ff',
    });
    expect(parseImageReference('localhost:5000/pause')).toEqual({ repository: 'localhost:5000/pause' });
  });

  it('keeps an empty tag or digest apart from a missing one (the runtime refuses "name:"), both untagged for the pull policy', () => {
    expect(parseImageReference('nginx:')).toEqual({ repository: 'nginx', tag: '' });
    expect(parseImageReference('nginx@')).toEqual({ repository: 'nginx', digest: '' });
    expect(['nginx', 'nginx:', 'nginx@'].map((image) => isUntaggedImage(parseImageReference(image)))).toEqual([true, true, true]);
    expect(['nginx:1', 'nginx@sha256:ff'].map((image) => isUntaggedImage(parseImageReference(image)))).toEqual([false, false]);
    expect(defaultImagePullPolicy('nginx:')).toBe('Always');
  });

  it('defaults probes, ports, httpGet, and requests from limits in init and regular containers', () => {
    const out = applyPodDefaults(
      pod({
        initContainers: [{ name: 'i', image: 'x:1', resources: { limits: { cpu: '1' } } }],
        containers: [
          {
            name: 'a',
            image: 'x:1',
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '1' } },
            readinessProbe: { httpGet: { port: 80 } },
            livenessProbe: { tcpSocket: { port: 80 }, periodSeconds: 5 },
            lifecycle: { preStop: { httpGet: { port: 80 } } },
          },
        ],
      }),
    );
    const c = out.spec.containers[0];
    expect(c?.ports?.[0]?.protocol).toBe('TCP');
    expect(c?.ports?.[0]?.hostPort).toBeUndefined();
    expect(c?.resources?.requests).toEqual({ cpu: '1', memory: '1Gi' });
    expect(out.spec.initContainers?.[0]?.resources?.requests).toEqual({ cpu: '1' });
    expect(c?.readinessProbe).toMatchObject({
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
      httpGet: { path: '/', scheme: 'HTTP', port: 80 },
    });
    expect(c?.livenessProbe?.periodSeconds).toBe(5);
    expect(c?.lifecycle?.preStop?.httpGet).toMatchObject({ path: '/', scheme: 'HTTP' });
  });

  it('sets hostPort to containerPort with host networking', () => {
    const out = applyPodDefaults(pod({ hostNetwork: true, containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 8080 }] }] }));
    expect(out.spec.containers[0]?.ports?.[0]?.hostPort).toBe(8080);
  });

  it('defaults volume modes to 0644 and a sourceless volume to emptyDir', () => {
    const out = applyPodDefaults(
      pod({
        containers: [{ name: 'a', image: 'x' }],
        volumes: [
          { name: 'cm', configMap: { name: 'c' } },
          { name: 's', secret: { secretName: 's', defaultMode: 0o400 } },
          { name: 'd', downwardAPI: {} },
          { name: 'p', projected: {} },
          { name: 'e' },
          { name: 'h', hostPath: { path: '/x' } },
        ],
      }),
    );
    const byName = Object.fromEntries((out.spec.volumes ?? []).map((v) => [v.name, v]));
    expect(byName.cm?.configMap?.defaultMode).toBe(0o644);
    expect(byName.s?.secret?.defaultMode).toBe(0o400);
    expect(byName.d?.downwardAPI?.defaultMode).toBe(0o644);
    expect(byName.p?.projected?.defaultMode).toBe(0o644);
    expect(byName.e?.emptyDir).toEqual({});
    expect(byName.h?.hostPath?.type).toBe('');
  });

  it('does not modify its input', () => {
    const input = pod({ containers: [{ name: 'a', image: 'x' }] });
    const before = JSON.stringify(input);
    applyPodDefaults(input);
    expect(JSON.stringify(input)).toBe(before);
  });
});
