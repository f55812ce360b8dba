import type { Node } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import {
  createNodeRegistration,
  createNodeStatus,
  createNodeStatusUpdater,
  initialNode,
  memoryPressureCondition,
  nodeAddress,
  readyCondition,
} from './index.js';
import type { NodeStatusUpdaterOptions } from './index.js';
import { apiStatusError, FakeNodeApi } from './testing/index.js';

const T0 = Date.UTC(2026, 0, 1);

function setup(overrides: Partial<NodeStatusUpdaterOptions> = {}) {
  const clock = new FakeClock(T0);
  const api = new FakeNodeApi();
  const logger = new RecordingLogger();
  const state = { ips: ['10.0.0.1'], runtimeErrors: [] as string[], repeatedFailures: 0 };
  const nodeStatus = createNodeStatus({
    nodeName: 'node-a',
    setters: [
      nodeAddress({ nodeIPs: () => state.ips, hostname: () => 'node-a' }),
      {
        name: 'Capacity',
        set: (n) => void ((n.status ??= {}).capacity = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '1Ti' }),
      },
      memoryPressureCondition(() => false, { clock }),
      readyCondition({ clock, runtimeErrors: () => state.runtimeErrors }),
    ],
  });
  const initial = async (): Promise<Node> => {
    const node = initialNode({ nodeName: 'node-a', arch: 'amd64' });
    await nodeStatus.setNodeStatus(node);
    return node;
  };
  const updater = createNodeStatusUpdater({
    nodeName: 'node-a',
    nodeApi: api,
    nodeLister: api.lister(),
    nodeStatus,
    arch: 'amd64',
    clock,
    logger,
    random: () => 0,
    onRepeatedHeartbeatFailure: () => state.repeatedFailures++,
    ...overrides,
  });
  return { clock, api, logger, state, nodeStatus, initial, updater };
}

async function registered(s: ReturnType<typeof setup>): Promise<Node> {
  return s.api.put(await s.initial());
}

describe('node status updater', () => {
  it('patches the first time, then only on a change or when the report frequency has passed', async () => {
    const s = setup();
    await registered(s);
    await s.updater.updateNodeStatus();
    // First report: a heartbeat (nothing changed, but never reported yet).
    expect(s.api.patches).toHaveLength(1);
    // Try 0 read the informer: no GET.
    expect(s.api.calls.map((c) => c.method)).toEqual(['patchStatus']);

    await s.clock.advance(10_000);
    await s.updater.updateNodeStatus();
    expect(s.api.patches).toHaveLength(1);

    await s.clock.advance(10_000);
    s.state.ips = ['10.0.0.2'];
    await s.updater.updateNodeStatus();
    expect(s.api.patches).toHaveLength(2);
    expect(s.api.patches[1]?.['status']).toMatchObject({
      addresses: [{ address: '10.0.0.2', type: 'InternalIP' }, { address: 'node-a', type: 'Hostname' }, { $patch: 'replace' }],
    });
    expect(s.api.nodes.get('node-a')?.status?.addresses?.[0]?.address).toBe('10.0.0.2');

    // Unchanged until 5 minutes after the last report: then a heartbeat-only patch.
    await s.clock.advance(4 * 60_000 + 50_000);
    await s.updater.updateNodeStatus();
    expect(s.api.patches).toHaveLength(2);
    await s.clock.advance(10_000);
    await s.updater.updateNodeStatus();
    expect(s.api.patches).toHaveLength(3);
    expect(s.api.patches[2]).toEqual({
      status: {
        '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
        conditions: [
          { lastHeartbeatTime: '2026-01-01T00:05:20Z', type: 'MemoryPressure' },
          { lastHeartbeatTime: '2026-01-01T00:05:20Z', type: 'Ready' },
        ],
      },
    });
  });

  it('sees a change of Ready as a change, and a heartbeat alone as none', async () => {
    const s = setup();
    await registered(s);
    await s.updater.updateNodeStatus();
    await s.clock.advance(10_000);
    s.state.runtimeErrors = ['container runtime is down'];
    await s.updater.updateNodeStatus();
    expect(s.api.patches).toHaveLength(2);
    expect(s.api.nodes.get('node-a')?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'False',
      message: 'container runtime is down',
      lastTransitionTime: '2026-01-01T00:00:10Z',
    });
  });

  it('repairs the os and arch labels through the status patch', async () => {
    const s = setup();
    const node = await s.initial();
    node.metadata.labels!['kubernetes.io/arch'] = 's390x';
    s.api.put(node);
    await s.updater.updateNodeStatus();
    await s.clock.advance(10_000);
    s.api.nodes.get('node-a')!.metadata.labels!['kubernetes.io/arch'] = 's390x';
    await s.updater.updateNodeStatus();
    // Only the label and the heartbeats: the label alone made it a change.
    expect(s.api.patches[1]).toEqual({
      metadata: { labels: { 'kubernetes.io/arch': 'amd64' } },
      status: {
        '$setElementOrder/conditions': [{ type: 'MemoryPressure' }, { type: 'Ready' }],
        conditions: [
          { lastHeartbeatTime: '2026-01-01T00:00:10Z', type: 'MemoryPressure' },
          { lastHeartbeatTime: '2026-01-01T00:00:10Z', type: 'Ready' },
        ],
      },
    });
  });

  it('retries with GETs after try 0, calls onRepeatedHeartbeatFailure from the second failure, gives up after 5', async () => {
    const s = setup();
    await registered(s);
    s.api.failNext(
      'patchStatus',
      apiStatusError(500, 'InternalError'),
      apiStatusError(500, 'InternalError'),
      apiStatusError(500, 'InternalError'),
    );
    await s.updater.updateNodeStatus();
    expect(s.api.calls.map((c) => c.method)).toEqual(['patchStatus', 'get', 'patchStatus', 'get', 'patchStatus', 'get', 'patchStatus']);
    expect(s.state.repeatedFailures).toBe(2);

    s.api.failNext('patchStatus', ...Array.from({ length: 5 }, () => apiStatusError(503, 'ServiceUnavailable')));
    await s.clock.advance(10_000);
    s.state.ips = ['10.0.0.9'];
    await expect(s.updater.updateNodeStatus()).rejects.toMatchObject({
      code: 'UPDATE_FAILED',
      message: 'update node status exceeds retry count',
    });
    expect(s.state.repeatedFailures).toBe(6);
  });

  it('reads the API when the informer does not have the node yet, and fails on an invalid node', async () => {
    const s = setup({ nodeLister: { get: () => undefined } });
    await registered(s);
    await s.updater.updateNodeStatus();
    expect(s.api.calls.map((c) => c.method)).toEqual(['get', 'patchStatus']);

    const bad = setup({ nodeLister: { get: () => ({ metadata: { name: 42 } }) } });
    await registered(bad);
    await bad.updater.syncNodeStatus();
    expect(
      bad.logger.records.some((r) => String(r.fields?.['err']).includes('node informer node-a: not a valid Node: metadata.name')),
    ).toBe(true);
  });

  it('reads the API while the informer is not current: a node marked Unknown meanwhile is reported Ready again', async () => {
    const stale: { node: Node | undefined; current: boolean } = { node: undefined, current: true };
    const s = setup({ nodeLister: { get: () => stale.node, isCurrent: () => stale.current } });
    await registered(s);
    await s.updater.updateNodeStatus();
    stale.node = structuredClone(s.api.nodes.get('node-a'));
    // The API server was away; on its return the node lifecycle controller marks the node Unknown
    // before the kubelet's watch is back, so the informer still holds the Ready node.
    const ready = s.api.nodes.get('node-a')!.status!.conditions!.find((c) => c.type === 'Ready')!;
    Object.assign(ready, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' });
    await s.clock.advance(10_000);
    await s.updater.updateNodeStatus();
    // A current informer is trusted, as upstream trusts its lister: nothing to report.
    expect(s.api.patches).toHaveLength(1);
    stale.current = false;
    await s.updater.updateNodeStatus();
    expect(s.api.calls.slice(-2).map((c) => c.method)).toEqual(['get', 'patchStatus']);
    expect(s.api.nodes.get('node-a')?.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      reason: 'KubeletReady',
    });
  });

  it('fastStatusUpdateOnce patches as soon as the node turns Ready, then stops', async () => {
    const s = setup();
    s.state.runtimeErrors = ['container runtime network not ready'];
    await registered(s);
    const fast = s.updater.fastStatusUpdateOnce();
    await s.clock.advance(1_000);
    // Not Ready yet: nothing sent in ten tries.
    expect(s.api.patches).toHaveLength(0);
    s.state.runtimeErrors = [];
    await s.clock.advance(100);
    await fast;
    expect(s.api.patches).toHaveLength(1);
    expect(s.api.nodes.get('node-a')?.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    await s.clock.advance(10_000);
    expect(s.api.patches).toHaveLength(1);
  });

  it('run registers, then syncs every 10 s until aborted', async () => {
    const s = setup();
    const registration = createNodeRegistration({ nodeName: 'node-a', nodeApi: s.api, initialNode: s.initial, clock: s.clock });
    const updater = createNodeStatusUpdater({
      nodeName: 'node-a',
      nodeApi: s.api,
      nodeLister: s.api.lister(),
      nodeStatus: s.nodeStatus,
      registration,
      arch: 'amd64',
      clock: s.clock,
      random: () => 0,
      reportFrequencyMs: 20_000,
    });
    const controller = new AbortController();
    const running = updater.run(controller.signal);
    await s.clock.advance(100);
    expect(s.api.calls.map((c) => c.method)).toEqual(['create', 'patchStatus']);
    // Reported every 20 s (the report frequency here), computed every 10 s.
    await s.clock.advance(60_000);
    expect(s.api.patches).toHaveLength(4);
    controller.abort();
    await running;
    await s.clock.advance(60_000);
    expect(s.api.patches).toHaveLength(4);
  });
});
