import { FakeClock } from '@kubelet-ts/common/testing';
import { createNodeLeaseController } from './index.js';
import type { NodeLeaseControllerOptions } from './index.js';
import { apiStatusError, FakeLeaseApi, FakeNodeApi } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0, 250);
const NS = 'kube-node-lease';

function setup(overrides: Partial<NodeLeaseControllerOptions> = {}) {
  const clock = new FakeClock(T0);
  const leases = new FakeLeaseApi();
  const nodes = new FakeNodeApi();
  nodes.put({ metadata: { name: 'node-a', uid: 'node-uid' } });
  const state = { repeatedFailures: 0 };
  const at: number[] = [];
  const get = leases.get.bind(leases);
  leases.get = (ns, name) => {
    at.push(clock.now() - T0);
    return get(ns, name);
  };
  const controller = createNodeLeaseController({
    nodeName: 'node-a',
    leaseApi: leases,
    nodeApi: nodes,
    clock,
    random: () => 0,
    onRepeatedHeartbeatFailure: () => state.repeatedFailures++,
    ...overrides,
  });
  const methods = () => leases.calls.map((c) => c.method);
  return { clock, leases, nodes, state, controller, methods, getTimes: at };
}

describe('node lease controller', () => {
  it('creates the missing lease with an owner reference to the Node, then renews it every 10 s by PUT alone', async () => {
    const s = setup();
    const abort = new AbortController();
    const running = s.controller.run(abort.signal);
    await s.clock.advance(0);
    expect(s.methods()).toEqual(['get', 'create']);
    expect(s.leases.calls[1]?.body).toEqual({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'node-a', namespace: NS, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-uid' }] },
      spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.250000Z' },
    });

    await s.clock.advance(10_000);
    await s.clock.advance(10_000);
    expect(s.methods()).toEqual(['get', 'create', 'update', 'update']);
    const stored = s.leases.lease(NS, 'node-a')!;
    expect(stored.spec?.renewTime).toBe('2026-01-01T00:00:20.250000Z');
    expect(stored.metadata.ownerReferences?.[0]?.uid).toBe('node-uid');
    // The Node was read once, for the owner reference.
    expect(s.nodes.calls.filter((c) => c.method === 'get')).toHaveLength(1);
    abort.abort();
    await running;
  });

  it('renews an existing lease at once, adding the owner reference it lacks', async () => {
    const s = setup();
    await s.leases.create({ metadata: { name: 'node-a', namespace: NS }, spec: { holderIdentity: 'node-a' } });
    s.leases.calls.length = 0;
    await s.controller.sync();
    expect(s.methods()).toEqual(['get', 'update']);
    expect(s.leases.lease(NS, 'node-a')?.metadata.ownerReferences).toEqual([
      { apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-uid' },
    ]);
  });

  it('on a conflict GETs the lease again and retries the PUT', async () => {
    const s = setup();
    await s.controller.sync();
    s.leases.touch(NS, 'node-a');
    await s.controller.sync();
    expect(s.methods()).toEqual(['get', 'create', 'update', 'get', 'update']);
    expect(s.leases.lease(NS, 'node-a')?.spec?.renewTime).toBe('2026-01-01T00:00:00.250000Z');
    expect(s.state.repeatedFailures).toBe(0);
  });

  it('does not create the lease before the Node exists (no owner yet), and creates it on a later round', async () => {
    const s = setup();
    s.nodes.nodes.clear();
    await s.controller.sync();
    expect(s.methods()).toEqual(['get']);
    expect(s.controller.latestLease).toBeUndefined();
    s.nodes.put({ metadata: { name: 'node-a', uid: 'later-uid' } });
    await s.controller.sync();
    expect(s.methods()).toEqual(['get', 'get', 'create']);
    expect(s.leases.lease(NS, 'node-a')?.metadata.ownerReferences?.[0]?.uid).toBe('later-uid');
  });

  it('retries ensuring the lease with a back-off of 200 ms doubling to 7 s while the API fails', async () => {
    const s = setup();
    s.leases.failNext('get', ...Array.from({ length: 7 }, () => apiStatusError(503, 'ServiceUnavailable')));
    const done = s.controller.sync();
    await s.clock.advance(60_000);
    await done;
    expect(s.getTimes).toEqual([0, 200, 600, 1400, 3000, 6200, 12_600, 19_600]);
    expect(s.methods().slice(-1)).toEqual(['create']);
  });

  it('tries a failing renewal 5 times, calling onRepeatedHeartbeatFailure from the second, then falls back to GET', async () => {
    const s = setup();
    await s.controller.sync();
    s.leases.failNext('update', ...Array.from({ length: 5 }, () => apiStatusError(500, 'InternalError')));
    await s.clock.advance(10_000);
    await s.controller.sync();
    expect(s.methods()).toEqual(['get', 'create', 'update', 'update', 'update', 'update', 'update', 'get', 'update']);
    expect(s.state.repeatedFailures).toBe(4);
    expect(s.leases.lease(NS, 'node-a')?.spec?.renewTime).toBe('2026-01-01T00:00:10.250000Z');
  });

  it('renews without an owner reference when it has no NodeApi, and honours its durations', async () => {
    const s = setup({ nodeApi: undefined, leaseDurationSeconds: 20 });
    const abort = new AbortController();
    const running = s.controller.run(abort.signal);
    await s.clock.advance(5_000);
    expect(s.methods()).toEqual(['get', 'create', 'update']);
    expect(s.leases.lease(NS, 'node-a')?.metadata.ownerReferences).toBeUndefined();
    expect(s.leases.lease(NS, 'node-a')?.spec?.leaseDurationSeconds).toBe(20);
    abort.abort();
    await running;
  });
});
