import { hasPodLevelLimit, podLimits, podRequests } from './pod-resources.js';
import type { Pod } from './schemas.js';
import { newPod } from './testing/index.js';

const res = (requests: Record<string, string>, limits: Record<string, string> = {}) => ({ resources: { requests, limits } });
const MiB = 1024 * 1024;
const asObject = (m: Map<string, number>): Record<string, number> => Object.fromEntries(m);

function collect(): { onInvalid: (where: string, err: unknown) => void; invalid: string[] } {
  const invalid: string[] = [];
  return { invalid, onInvalid: (where, err) => invalid.push(`${where}: ${(err as Error).message}`) };
}

describe('podRequests', () => {
  it('sums containers and sidecars, takes the max with each init container plus the sidecars before it, adds the overhead', () => {
    const pod = newPod({
      defaults: false,
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', ...res({ cpu: '100m', memory: '10Mi' }) },
        { name: 'init', ...res({ cpu: '1', memory: '10Mi' }) },
      ],
      containers: [{ name: 'a', ...res({ cpu: '200m', memory: '20Mi', 'example.com/gpu': '1' }) }],
      spec: { overhead: { cpu: '10m', memory: '1Mi' } },
    });
    const { onInvalid, invalid } = collect();
    // cpu: max(200 + 100, 1000 + 100) + 10; memory: max(20 + 10, 10 + 10) + 1.
    expect(asObject(podRequests(pod, { onInvalid }))).toEqual({ cpu: 1110, memory: 31 * MiB, 'example.com/gpu': 1 });
    expect(invalid).toEqual([]);
  });

  it('lets pod-level requests override cpu, memory and hugepages only', () => {
    const pod = newPod({ defaults: false, containers: [{ name: 'a', ...res({ cpu: '200m', 'example.com/gpu': '2' }) }] });
    (pod.spec as Record<string, unknown>)['resources'] = { requests: { cpu: '1', 'example.com/gpu': '5' } };
    expect(asObject(podRequests(pod, { onInvalid: () => undefined }))).toEqual({ cpu: 1000, 'example.com/gpu': 2 });
  });

  it('with status resources counts the larger of spec, status and allocated; only status and allocated when the resize is infeasible', () => {
    const pod: Pod = newPod({ defaults: false, containers: [{ name: 'a', ...res({ cpu: '500m' }) }] });
    pod.status = {
      containerStatuses: [
        {
          name: 'a',
          image: 'busybox',
          imageID: '',
          ready: true,
          restartCount: 0,
          resources: { requests: { cpu: '300m' } },
          allocatedResources: { cpu: '400m' },
        },
      ],
    } as Pod['status'];
    expect(podRequests(pod, { onInvalid: () => undefined, useStatusResources: true }).get('cpu')).toBe(500);
    expect(podRequests(pod, { onInvalid: () => undefined }).get('cpu')).toBe(500);
    pod.status!.conditions = [{ type: 'PodResizePending', status: 'True', reason: 'Infeasible' }];
    expect(podRequests(pod, { onInvalid: () => undefined, useStatusResources: true }).get('cpu')).toBe(400);
  });

  it('drops what `keep` refuses, and reports each quantity that does not parse by where it is', () => {
    const pod = newPod({
      defaults: false,
      containers: [{ name: 'a', ...res({ cpu: 'lots', memory: '1Mi', 'example.com/gpu': '1' }) }],
      spec: { overhead: { memory: 'much' } },
    });
    const { onInvalid, invalid } = collect();
    const amounts = podRequests(pod, { onInvalid, keep: (name) => name !== 'example.com/gpu' });
    expect(asObject(amounts)).toEqual({ memory: MiB });
    expect(invalid).toEqual([
      expect.stringMatching(/^spec\.containers\[0\]\.resources\.requests\[cpu\]: quantity "lots" is invalid/),
      expect.stringMatching(/^spec\.overhead\[memory\]: quantity "much" is invalid/),
    ]);
  });
});

describe('podLimits', () => {
  it('aggregates limits like requests and adds the overhead only to the limits present', () => {
    const pod = newPod({
      defaults: false,
      initContainers: [{ name: 'init', ...res({}, { cpu: '1' }) }],
      containers: [{ name: 'a', ...res({}, { cpu: '200m' }) }],
      spec: { overhead: { cpu: '10m', memory: '1Mi' } },
    });
    const seen: string[] = [];
    const limits = podLimits(pod, { onInvalid: () => undefined, onContainer: (c, a, kind) => seen.push(`${kind} ${c.name} ${a.size}`) });
    // No container limits memory: memory stays unlimited, the overhead does not make it a limit.
    expect(asObject(limits)).toEqual({ cpu: 1010 });
    expect(seen).toEqual(['container a 1', 'init init 1']);
  });

  it('lets pod-level limits override, and tells whether the pod sets one', () => {
    const pod = newPod({ defaults: false, containers: [{ name: 'a', ...res({}, { cpu: '200m' }) }] });
    expect(hasPodLevelLimit(pod, 'memory')).toBe(false);
    (pod.spec as Record<string, unknown>)['resources'] = { limits: { memory: '64Mi' } };
    expect(asObject(podLimits(pod, { onInvalid: () => undefined }))).toEqual({ cpu: 200, memory: 64 * MiB });
    expect(hasPodLevelLimit(pod, 'memory')).toBe(true);
    expect(hasPodLevelLimit(pod, 'cpu')).toBe(false);
  });
});
