import type { Node } from '@kubelet-ts/api';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createNodeRegistration, initialNode } from './index.js';
import { apiStatusError, FakeNodeApi } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1);

function built(overrides: Partial<Parameters<typeof initialNode>[0]> = {}): Node {
  const node = initialNode({ nodeName: 'node-a', arch: 'amd64', nodeLabels: { 'example.com/role': 'worker' }, ...overrides });
  node.status = {
    capacity: { cpu: '4', memory: '8Gi', pods: '110', 'hugepages-2Mi': '0', 'hugepages-1Gi': '2Gi' },
    allocatable: { cpu: '3800m', memory: '7Gi', pods: '110', 'hugepages-2Mi': '0', 'hugepages-1Gi': '2Gi' },
  };
  return node;
}

function setup(node: Node = built()) {
  const clock = new FakeClock(T0);
  const api = new FakeNodeApi();
  const tries: number[] = [];
  const create = api.create.bind(api);
  api.create = (n) => {
    tries.push(clock.now() - T0);
    return create(n);
  };
  const metrics = new RecordingMetrics();
  const registration = createNodeRegistration({
    nodeName: 'node-a',
    nodeApi: api,
    initialNode: () => Promise.resolve(structuredClone(node)),
    clock,
    metrics,
  });
  return { clock, api, tries, registration, metrics };
}

describe('initialNode', () => {
  it('has the upstream labels, the attach-detach annotation, the taints and the unschedulable taint', () => {
    const node = initialNode({
      nodeName: 'node-a',
      hostname: 'host-a',
      arch: 'arm64',
      nodeLabels: { 'kubernetes.io/hostname': 'override', 'example.com/x': 'y' },
      registerWithTaints: [{ key: 'example.com/t', value: 'v', effect: 'NoExecute' }],
      registerSchedulable: false,
    });
    expect(node.metadata).toEqual({
      name: 'node-a',
      labels: {
        'kubernetes.io/hostname': 'override',
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'arm64',
        'beta.kubernetes.io/os': 'linux',
        'beta.kubernetes.io/arch': 'arm64',
        'example.com/x': 'y',
      },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    });
    expect(node.spec).toEqual({
      unschedulable: true,
      taints: [
        { key: 'example.com/t', value: 'v', effect: 'NoExecute' },
        { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' },
      ],
    });
    expect(initialNode({ nodeName: 'n', enableControllerAttachDetach: false }).metadata.annotations).toBeUndefined();
  });
});

describe('node registration', () => {
  it('POSTs the whole node, status included, after the first 100 ms', async () => {
    const { clock, api, tries, registration } = setup();
    const done = registration.register();
    await clock.advance(100);
    await done;
    expect(tries).toEqual([100]);
    expect(registration.registered).toBe(true);
    expect(api.nodes.get('node-a')?.status?.capacity?.cpu).toBe('4');
    expect(api.calls.map((c) => c.method)).toEqual(['create']);
  });

  it('retries refused POSTs with a back-off of 100 ms doubling to 7 s', async () => {
    const { clock, api, tries, registration, metrics } = setup();
    const forbidden = () => apiStatusError(403, 'Forbidden', 'nodes "node-a" is forbidden');
    api.failNext('create', ...Array.from({ length: 8 }, forbidden));
    const done = registration.register();
    await clock.advance(60_000);
    await done;
    expect(tries).toEqual([100, 300, 700, 1500, 3100, 6300, 12_700, 19_700, 26_700]);
    expect(metrics.value('kubelet_ts_node_registration_attempts_total', { result: 'failed' })).toBe(8);
  });

  it('reconciles an existing node through one status patch: default labels, annotation, hugepages; never taints', async () => {
    const { clock, api, registration } = setup();
    api.put({
      metadata: {
        name: 'node-a',
        labels: { 'kubernetes.io/hostname': 'old', 'kubernetes.io/arch': 'arm64', 'example.com/mine': 'kept' },
        annotations: { 'example.com/a': 'b' },
      },
      spec: { taints: [{ key: 'example.com/by-admin', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110', 'hugepages-2Mi': '0', 'hugepages-32Mi': '64Mi' },
        allocatable: { cpu: '3800m', memory: '7Gi', pods: '110', 'hugepages-2Mi': '0', 'hugepages-32Mi': '64Mi' },
      },
    });
    const done = registration.register();
    await clock.advance(100);
    await done;

    expect(api.calls.map((c) => c.method)).toEqual(['create', 'get', 'patchStatus']);
    expect(api.patches[0]).toEqual({
      metadata: {
        annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': 'node-a',
          'kubernetes.io/os': 'linux',
        },
      },
      status: {
        allocatable: { 'hugepages-1Gi': '2Gi', 'hugepages-32Mi': null },
        capacity: { 'hugepages-1Gi': '2Gi', 'hugepages-32Mi': null },
      },
    });
    const node = api.nodes.get('node-a')!;
    // --node-labels are not reconciled (only the default labels), the admin's taint stays.
    expect(node.metadata.labels?.['example.com/role']).toBeUndefined();
    expect(node.metadata.labels?.['example.com/mine']).toBe('kept');
    expect(node.spec?.taints).toEqual([{ key: 'example.com/by-admin', effect: 'NoSchedule' }]);
    expect(registration.registered).toBe(true);
  });

  it('sends no patch when the existing node needs nothing', async () => {
    const { clock, api, registration } = setup();
    api.put(built({ registerWithTaints: [{ key: 'k', effect: 'NoSchedule' }] }));
    const done = registration.register();
    await clock.advance(100);
    await done;
    expect(api.calls.map((c) => c.method)).toEqual(['create', 'get']);
  });

  it('retries when the reconcile patch fails, and never registers again once done', async () => {
    const { clock, api, registration } = setup();
    api.put({ metadata: { name: 'node-a' } });
    api.failNext('patchStatus', apiStatusError(500, 'InternalError'));
    const done = registration.register();
    await clock.advance(300);
    await done;
    expect(api.calls.map((c) => c.method)).toEqual(['create', 'get', 'patchStatus', 'create', 'get', 'patchStatus']);

    api.nodes.delete('node-a');
    await registration.register();
    await clock.advance(60_000);
    expect(api.calls.filter((c) => c.method === 'create')).toHaveLength(2);
  });

  it('stops when aborted', async () => {
    const { clock, api, registration } = setup();
    api.failNext('create', ...Array.from({ length: 50 }, () => apiStatusError(503, 'ServiceUnavailable')));
    const controller = new AbortController();
    const done = registration.register(controller.signal);
    await clock.advance(1000);
    controller.abort(new Error('stopped'));
    await expect(done).rejects.toThrow('stopped');
    expect(registration.registered).toBe(false);
  });
});
