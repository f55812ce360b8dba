import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { nodeReference } from '@kubelet-ts/common';
import { FakeClock, RecordingEventRecorder, RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import { GRACEFUL_NODE_SHUTDOWN_STATE_FILE, NODE_SHUTDOWN_MESSAGE, NodeShutdownError, createNodeShutdownManager } from './index.js';
import type { NodeShutdownManagerOptions, ShutdownKillRequest } from './index.js';
import { FakeInhibitor } from './testing/index.js';

const pod = (name: string, spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name, namespace: 'default', uid: `uid-${name}` },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});
const regular = pod('regular');
const critical = pod('critical', { priorityClassName: 'system-node-critical' });

/** Lets the manager's real file writes (the state file, fsync'd) and promise chains run until `done` holds; fake time stands still. */
async function settle(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
  await flushMicrotasks();
  expect(done()).toBe(true);
}

interface Kill {
  pod: string;
  request: ShutdownKillRequest;
  at: number;
  finish(): void;
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'node-shutdown-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

function setup(extra: Partial<NodeShutdownManagerOptions> = {}, pods: Pod[] = [regular, critical]) {
  const clock = new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5));
  const inhibitor = new FakeInhibitor();
  const recorder = new RecordingEventRecorder();
  const metrics = new RecordingMetrics();
  const kills: Kill[] = [];
  let syncs = 0;
  const manager = createNodeShutdownManager({
    shutdownGracePeriodMs: 20_000,
    shutdownGracePeriodCriticalPodsMs: 10_000,
    connectInhibitor: inhibitor.connect,
    getActivePods: () => pods,
    killPod: (p, request) =>
      new Promise<void>((resolve) => kills.push({ pod: p.metadata.name, request, at: clock.now(), finish: resolve })),
    syncNodeStatus: () => syncs++,
    stateDir: dir,
    nodeRef: nodeReference('node-a'),
    clock,
    recorder,
    metrics,
    ...extra,
  });
  const abort = new AbortController();
  const running = manager.run(abort.signal);
  return { clock, inhibitor, recorder, metrics, kills, manager, abort, running, syncs: () => syncs };
}

describe('createNodeShutdownManager', () => {
  it('is a stub without a grace period (upstream: disabled by an empty configuration) or with the gate off', async () => {
    const inhibitor = new FakeInhibitor();
    for (const o of [{ shutdownGracePeriodMs: 0 }, { shutdownGracePeriodMs: 20_000, enabled: false }]) {
      const manager = createNodeShutdownManager({
        shutdownGracePeriodCriticalPodsMs: 0,
        connectInhibitor: inhibitor.connect,
        getActivePods: () => [],
        killPod: async () => undefined,
        stateDir: dir,
        nodeRef: nodeReference('n'),
        ...o,
      });
      expect(manager.enabled).toBe(false);
      await manager.run(new AbortController().signal);
      expect(manager.admit(regular)).toEqual({ admit: true });
    }
    expect(inhibitor.connections).toBe(0);
  });

  it('raises a too short InhibitDelayMaxSec through the drop-in and a reload, then takes the inhibitor and watches', async () => {
    const t = setup();
    await settle(() => t.inhibitor.calls.length === 6);
    expect(t.inhibitor.calls.map((c) => c.op)).toEqual([
      'currentInhibitDelay',
      'override',
      'reload',
      'currentInhibitDelay',
      'inhibit',
      'monitor',
    ]);
    expect(t.inhibitor.calls[1]).toEqual({ op: 'override', ms: 20_000 });
    expect(t.inhibitor.held).toEqual([1]);
    t.abort.abort();
    await t.running;
    // The kubelet stops: the inhibitor goes with it.
    expect(t.inhibitor.held).toEqual([]);
  });

  it('refuses to start when logind keeps a shorter delay, with upstream message', async () => {
    const clock = new FakeClock();
    const inhibitor = new FakeInhibitor();
    inhibitor.delayAfterReloadMs = 5_000;
    const manager = createNodeShutdownManager({
      shutdownGracePeriodMs: 20_000,
      shutdownGracePeriodCriticalPodsMs: 10_000,
      connectInhibitor: inhibitor.connect,
      getActivePods: () => [],
      killPod: async () => undefined,
      stateDir: dir,
      nodeRef: nodeReference('n'),
      clock,
    });
    const running = manager.run(new AbortController().signal).catch((err: unknown) => err);
    await clock.advance(6_000);
    const err = await running;
    expect(NodeShutdownError.is(err, 'INHIBIT_DELAY_TOO_SHORT')).toBe(true);
    expect((err as Error).message).toBe(
      'node shutdown manager was unable to update logind InhibitDelayMaxSec to 20s (ShutdownGracePeriod), current value of InhibitDelayMaxSec (5s) is less than requested ShutdownGracePeriod',
    );
    expect(inhibitor.held).toEqual([]);
  });

  it('on PrepareForShutdown(true): regular pods first with their budget, critical pods after with theirs, then the inhibitor released', async () => {
    const t = setup();
    await settle(() => t.inhibitor.held.length === 1);
    const start = t.clock.now();
    t.inhibitor.prepareForShutdown(true);
    await settle(() => t.kills.length === 1);
    // The node is shutting down: new pods refused, the Ready condition says so, the node status synced.
    expect(t.manager.admit(pod('new'))).toEqual({
      admit: false,
      reason: 'NodeShutdown',
      message: 'Pod was rejected as the node is shutting down.',
    });
    expect(t.manager.shutdownErrors()).toEqual(['node is shutting down']);
    expect(t.syncs()).toBe(1);
    expect(t.recorder.lines()).toEqual(['Normal Shutdown Shutdown manager detected shutdown event']);
    expect(t.kills.map((k) => k.pod)).toEqual(['regular']);
    expect(t.kills[0]?.request).toEqual({
      gracePeriodSeconds: 10,
      reason: 'Terminated',
      message: NODE_SHUTDOWN_MESSAGE,
      condition: { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: NODE_SHUTDOWN_MESSAGE },
    });
    // The regular pod stops after 3 s: the critical group starts then, not at the end of the budget.
    await t.clock.advance(3_000);
    t.kills[0]?.finish();
    await settle(() => t.kills.length === 2);
    expect(t.kills.map((k) => [k.pod, k.at - start, k.request.gracePeriodSeconds])).toEqual([
      ['regular', 0, 10],
      ['critical', 3_000, 10],
    ]);
    expect(t.inhibitor.held).toEqual([1]);
    // The critical pod never stops: its group's budget (10 s) ends the wait, and the inhibitor goes.
    await t.clock.advance(9_999);
    expect(t.inhibitor.held).toEqual([1]);
    await t.clock.advance(1);
    await settle(() => t.inhibitor.held.length === 0);
    expect(t.inhibitor.calls.at(-1)).toEqual({ op: 'release', lock: 1 });
    // The state file and the metrics, as upstream writes them.
    const state = JSON.parse(await fs.readFile(path.join(dir, GRACEFUL_NODE_SHUTDOWN_STATE_FILE), 'utf8')) as unknown;
    expect(state).toEqual({ startTime: '2026-01-02T03:04:05Z', endTime: '2026-01-02T03:04:18Z' });
    expect(t.metrics.value('kubelet_graceful_shutdown_start_time_seconds')).toBe(start / 1000);
    expect(t.metrics.value('kubelet_graceful_shutdown_end_time_seconds')).toBe(start / 1000 + 13);
    // Upstream's help texts, the end time's saying "start" as upstream's does.
    expect(t.metrics.help('kubelet_graceful_shutdown_end_time_seconds')).toBe(
      'Last graceful shutdown start time since unix epoch in seconds',
    );
    t.abort.abort();
    await t.running;
  });

  it("uses a pod's shorter terminationGracePeriodSeconds, and kills with grace 0 when the critical budget is 0", async () => {
    const t = setup({ shutdownGracePeriodCriticalPodsMs: 0 }, [pod('quick', { terminationGracePeriodSeconds: 2 }), critical]);
    await settle(() => t.inhibitor.held.length === 1);
    t.inhibitor.prepareForShutdown(true);
    await settle(() => t.kills.length === 1);
    expect(t.kills.map((k) => [k.pod, k.request.gracePeriodSeconds])).toEqual([['quick', 2]]);
    await t.clock.advance(20_000);
    await settle(() => t.kills.length === 2);
    expect(t.kills.map((k) => [k.pod, k.request.gracePeriodSeconds])).toEqual([
      ['quick', 2],
      ['critical', 0],
    ]);
    t.abort.abort();
    await t.running;
  });

  it('groups by shutdownGracePeriodByPodPriority when given (the gate on), else by the two settings', async () => {
    const low = pod('low', { priority: 10 });
    const mid = pod('mid', { priority: 1000 });
    const high = pod('high', { priority: 5000 });
    const t = setup(
      {
        shutdownGracePeriodMs: 0,
        shutdownGracePeriodCriticalPodsMs: 0,
        shutdownGracePeriodByPodPriority: [
          { priority: 5000, shutdownGracePeriodSeconds: 2 },
          { priority: 1000, shutdownGracePeriodSeconds: 3 },
          { priority: 0, shutdownGracePeriodSeconds: 4 },
        ],
      },
      [high, mid, low],
    );
    await settle(() => t.inhibitor.held.length === 1);
    expect(t.inhibitor.calls[1]).toEqual({ op: 'override', ms: 9_000 });
    t.inhibitor.prepareForShutdown(true);
    await settle(() => t.kills.length === 1);
    const seen = (): string[] => t.kills.map((k) => `${k.pod}:${k.request.gracePeriodSeconds}`);
    expect(seen()).toEqual(['low:4']);
    await t.clock.advance(4_000);
    await settle(() => t.kills.length === 2);
    expect(seen()).toEqual(['low:4', 'mid:3']);
    await t.clock.advance(3_000);
    await settle(() => t.kills.length === 3);
    expect(seen()).toEqual(['low:4', 'mid:3', 'high:2']);
    t.abort.abort();
    await t.running;
  });

  it('on a cancelled shutdown (false) takes the inhibitor again and admits pods again', async () => {
    const t = setup({}, []);
    await settle(() => t.inhibitor.held.length === 1);
    t.inhibitor.prepareForShutdown(true);
    await settle(() => t.inhibitor.held.length === 0);
    t.inhibitor.prepareForShutdown(false);
    await settle(() => t.inhibitor.held.length === 1);
    expect(t.manager.admit(regular)).toEqual({ admit: true });
    expect(t.manager.shutdownErrors()).toEqual([]);
    expect(t.inhibitor.held).toEqual([2]);
    expect(t.recorder.lines()).toEqual([
      'Normal Shutdown Shutdown manager detected shutdown event',
      'Normal Shutdown Shutdown manager detected shutdown cancellation',
    ]);
    t.abort.abort();
    await t.running;
  });

  it('reconnects after the bus went away (1 s later) and keeps one inhibitor', async () => {
    const t = setup();
    await settle(() => t.inhibitor.held.length === 1);
    t.inhibitor.inhibitDelayMs = 30_000;
    t.inhibitor.disconnect();
    await t.clock.advance(1_000);
    await settle(() => t.inhibitor.held.length === 1 && t.inhibitor.held[0] === 2);
    expect(t.inhibitor.connections).toBe(2);
    // The new lock first, then the old one released.
    expect(t.inhibitor.calls.filter((c) => c.op === 'inhibit' || c.op === 'release')).toEqual([
      { op: 'inhibit', lock: 1 },
      { op: 'inhibit', lock: 2 },
      { op: 'release', lock: 1 },
    ]);
    expect(t.inhibitor.held).toEqual([2]);
    t.abort.abort();
    await t.running;
  });

  it('fails its first start with START_FAILED (upstream gives up), keeps retrying later ones', async () => {
    const clock = new FakeClock();
    const inhibitor = new FakeInhibitor();
    inhibitor.connectErrors.push(new Error('no logind'));
    const manager = createNodeShutdownManager({
      shutdownGracePeriodMs: 20_000,
      shutdownGracePeriodCriticalPodsMs: 10_000,
      connectInhibitor: inhibitor.connect,
      getActivePods: () => [],
      killPod: async () => undefined,
      stateDir: dir,
      nodeRef: nodeReference('n'),
      clock,
    });
    await expect(manager.run(new AbortController().signal)).rejects.toMatchObject({
      code: 'START_FAILED',
      message: 'Failed to start node shutdown manager: no logind',
    });
  });

  it('sets the metrics from the state file of an earlier shutdown at start', async () => {
    await fs.writeFile(
      path.join(dir, GRACEFUL_NODE_SHUTDOWN_STATE_FILE),
      '{"startTime":"2025-12-31T23:59:00.5+01:00","endTime":"2025-12-31T23:59:20Z"}',
    );
    const t = setup();
    await settle(() => t.metrics.value('kubelet_graceful_shutdown_end_time_seconds') !== undefined);
    expect(t.metrics.value('kubelet_graceful_shutdown_start_time_seconds')).toBe(Date.parse('2025-12-31T22:59:00Z') / 1000);
    expect(t.metrics.value('kubelet_graceful_shutdown_end_time_seconds')).toBe(Date.parse('2025-12-31T23:59:20Z') / 1000);
    t.abort.abort();
    await t.running;
  });
});
