import { mkdtemp, mkdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, ContainerStatus, Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingEventRecorder, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createStatusManager } from '@kubelet-ts/status-manager';
import { FakeStatusSink } from '@kubelet-ts/status-manager/testing';
import type { ContainerMount } from '@kubelet-ts/container-runtime';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import type { PodLifecycleOptions } from './lifecycle.js';
import { createPodStartupLatencyTracker } from './pod-startup-latency.js';
import { createPodLifecycleForTest, makePod } from './testing/index.js';
import type { PodCgroupsHook, VolumeProvider } from './types.js';

function setup(extra: Partial<PodLifecycleOptions> = {}, before?: (runtime: FakeContainerRuntime) => void, clock = new FakeClock()) {
  const runtime = new FakeContainerRuntime({ clock });
  before?.(runtime);
  const logger = new RecordingLogger();
  const composed = createPodLifecycleForTest({
    runtime,
    clock,
    logger,
    nodeName: 'node-1',
    getNodeIPs: () => ['192.168.1.10'],
    random: () => 0.5,
    ...extra,
  });
  const { lifecycle, podWorkers, statusManager } = composed;
  const controller = new AbortController();
  const running = lifecycle.run(controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await running;
  };
  const syncsOf = (pod: Pod) => runtime.callsOf('syncPod').filter((c) => c.pod.metadata.uid === pod.metadata.uid);
  return { clock, runtime, logger, lifecycle, podWorkers, statusManager, housekeeping: composed.housekeeping, stop, syncsOf };
}

type Harness = ReturnType<typeof setup>;
let current: Harness | undefined;
afterEach(async () => {
  await current?.stop();
  current = undefined;
});
function start(extra: Partial<PodLifecycleOptions> = {}, before?: (runtime: FakeContainerRuntime) => void, clock?: FakeClock): Harness {
  current = setup(extra, before, clock);
  return current;
}

describe('pod lifecycle: sync loop', () => {
  it('starts an added pod and reports its running status with addresses and IDs', async () => {
    const h = start();
    const pod = makePod({ name: 'web' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    expect(h.syncsOf(pod).length).toBeGreaterThanOrEqual(1);
    const app = h.runtime.latestContainer(pod.metadata.uid, 'app');
    expect(app?.state).toBe('running');

    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status).toMatchObject({
      phase: 'Running',
      podIP: '10.88.0.2',
      podIPs: [{ ip: '10.88.0.2' }],
      hostIP: '192.168.1.10',
      hostIPs: [{ ip: '192.168.1.10' }],
      qosClass: 'BestEffort',
      startTime: expect.stringMatching(/^2026-01-01T00:00:0\dZ$/),
    });
    expect(status?.containerStatuses?.[0]).toMatchObject({
      name: 'app',
      ready: true,
      started: true,
      containerID: `containerd://${app?.id}`,
    });
    expect(status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(h.lifecycle.getPods()).toEqual([{ ...pod, status }]);
  });

  it('shows a started pod Running and Ready right after the sync that started it, before the next relist', async () => {
    const h = start();
    const pod = makePod({ name: 'web' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    // The first relist (1 s) lets the worker sync; the containers it starts are read back at once.
    await h.clock.advance(1_000);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.state).toBe('running');
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status?.phase).toBe('Running');
    expect(status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(h.runtime.callsOf('getPodStatus').some((c) => c.uid === pod.metadata.uid)).toBe(true);
  });

  it('a readiness change (handleProbeResult) shows in the status at once, then the pod syncs with the next relist', async () => {
    let ready = false;
    const h = start({ readiness: { isReady: () => ready } });
    const pod = makePod({ name: 'web', containers: [{ name: 'app', image: 'busybox', readinessProbe: { httpGet: { port: 8080 } } }] });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    const readyCondition = (): string | undefined =>
      h.lifecycle.getPodStatus(pod.metadata.uid)?.conditions?.find((c) => c.type === 'Ready')?.status;
    expect(readyCondition()).toBe('False');
    const before = h.syncsOf(pod).length;
    ready = true;
    const containerId = h.runtime.latestContainer(pod.metadata.uid, 'app')?.id ?? '';
    h.lifecycle.handleProbeResult({ probeType: 'readiness', podUID: pod.metadata.uid, containerId });
    expect(readyCondition()).toBe('True');
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]?.ready).toBe(true);
    await h.clock.advance(1_000);
    expect(h.syncsOf(pod).length).toBeGreaterThan(before);
    // An unknown UID is ignored.
    h.lifecycle.handleProbeResult({ probeType: 'readiness', podUID: 'no-such-pod', containerId });
  });

  it('re-syncs an updated pod with the new spec', async () => {
    const h = start();
    const pod = makePod();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    const updated: Pod = { ...pod, metadata: { ...pod.metadata, labels: { version: '2' } } };
    h.lifecycle.handlePodUpdate({ op: 'UPDATE', source: 'file', pods: [updated] });
    await h.clock.advance(1_000);
    expect(h.syncsOf(pod).at(-1)?.pod.metadata.labels).toEqual({ version: '2' });
    expect(h.lifecycle.getPods()[0]?.metadata.labels).toEqual({ version: '2' });
  });

  it('kills a removed pod with its grace period, forgets it, and lets GC remove its containers', async () => {
    const h = start();
    const pod = makePod({ terminationGracePeriodSeconds: 5 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    const kills = h.runtime.callsOf('killPod');
    expect(kills).toHaveLength(1);
    expect(kills[0]).toMatchObject({ pod: { metadata: { uid: pod.metadata.uid } }, gracePeriodOverrideSeconds: 5 });
    expect(h.lifecycle.getPods()).toEqual([]);
    expect(h.podWorkers.isPodKnown(pod.metadata.uid)).toBe(false);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)).toBeUndefined();
    // Its dead containers and sandbox are collected at once, not a GC period later (the fake's GC
    // only removes pods whose containers all exited and sandboxes stopped).
    expect(h.clock.now()).toBeLessThan(60_000 + Date.UTC(2026, 0, 1));
    expect(h.runtime.callsOf('garbageCollect').at(-1)?.allSourcesReady).toBe(true);
    expect(h.runtime.pods.has(pod.metadata.uid)).toBe(false);
  });

  it("removes a deleted pod's containers and sandbox right after its termination; a pod still listed (API deletion in progress) keeps them", async () => {
    const h = start();
    const removed = makePod({ name: 'removed', terminationGracePeriodSeconds: 1 });
    const deleting = makePod({ name: 'deleting', terminationGracePeriodSeconds: 1 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [removed] });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [deleting] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [removed] });
    h.lifecycle.handlePodUpdate({
      op: 'DELETE',
      source: 'api',
      pods: [{ ...deleting, metadata: { ...deleting.metadata, deletionTimestamp: '2026-01-01T00:00:02Z', deletionGracePeriodSeconds: 1 } }],
    });
    await h.clock.advance(5_000);
    const removals = h.runtime.callsOf('removeDeletedPod');
    expect(removals.map((c) => c.uid)).toEqual([removed.metadata.uid]);
    // With the status its termination read: every container stopped.
    expect(removals[0]?.status.containers.map((c) => c.state)).toEqual(['exited']);
  });

  it("keeps the status its termination read in the PLEG's cache, so the relists do not read the stopped pod again", async () => {
    const h = start();
    const pod = makePod({ name: 'stopping', terminationGracePeriodSeconds: 1 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(3_000);
    const readsBefore = h.runtime.callsOf('getPodStatus').filter((c) => c.uid === pod.metadata.uid).length;
    h.lifecycle.handlePodUpdate({ op: 'DELETE', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    // The one read of the termination itself: the relists saw the stopped containers already cached.
    expect(h.runtime.callsOf('getPodStatus').filter((c) => c.uid === pod.metadata.uid).length - readsBefore).toBe(1);
  });

  it('tells the object registry of every added, updated and removed pod, before the pod syncs', async () => {
    const calls: string[] = [];
    let syncsAtRegister = -1;
    const h = start({
      objectRegistry: {
        registerPod: (p) => {
          calls.push(`register ${p.metadata.name} ${p.metadata.labels?.['version'] ?? ''}`.trim());
          if (syncsAtRegister < 0) syncsAtRegister = h.runtime.callsOf('syncPod').length;
        },
        unregisterPod: (p) => calls.push(`unregister ${p.metadata.name}`),
      },
    });
    const pod = makePod({ terminationGracePeriodSeconds: 1 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    expect(syncsAtRegister).toBe(0);
    h.lifecycle.handlePodUpdate({
      op: 'UPDATE',
      source: 'file',
      pods: [{ ...pod, metadata: { ...pod.metadata, labels: { version: '2' } } }],
    });
    await h.clock.advance(1_000);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    expect(calls).toEqual([`register ${pod.metadata.name}`, `register ${pod.metadata.name} 2`, `unregister ${pod.metadata.name}`]);
  });

  it('tells removal listeners once a removed pod is forgotten, and only then', async () => {
    const h = start();
    const pod = makePod({ terminationGracePeriodSeconds: 1 });
    const removed: string[] = [];
    h.lifecycle.onPodRemoved((uid) => removed.push(uid));
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(10_000);
    expect(removed).toEqual([]);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await h.clock.advance(10_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)).toBeUndefined();
    expect(removed).toEqual([pod.metadata.uid]);
    await h.clock.advance(10_000);
    expect(removed).toEqual([pod.metadata.uid]);
  });

  it('stops a pod being deleted with the deletion grace period, keeping it listed until REMOVE', async () => {
    const h = start();
    const pod = makePod({ terminationGracePeriodSeconds: 30 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(2_000);
    const deleting: Pod = {
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: '2026-01-01T00:00:02Z', deletionGracePeriodSeconds: 3 },
    };
    h.lifecycle.handlePodUpdate({ op: 'DELETE', source: 'api', pods: [deleting] });
    await h.clock.advance(3_000);
    expect(h.runtime.callsOf('killPod')[0]?.gracePeriodOverrideSeconds).toBe(3);
    expect(h.lifecycle.getPods()).toHaveLength(1);
    expect(h.lifecycle.getPods()[0]?.status?.phase).toBe('Failed');
  });

  it('kills an orphaned runtime pod only once all sources are ready, with a 1 s grace period', async () => {
    const h = start();
    const orphan = { uid: 'orphan-uid', name: 'old', namespace: 'default' };
    h.runtime.addSandbox(orphan);
    h.runtime.addContainer(orphan, 'app');
    await h.clock.advance(10_000);
    expect(h.runtime.callsOf('killPod')).toHaveLength(0);
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    const kills = h.runtime.callsOf('killPod');
    expect(kills).toHaveLength(1);
    expect(kills[0]).toMatchObject({ pod: undefined, running: { uid: 'orphan-uid' }, gracePeriodOverrideSeconds: 1 });
    expect(h.runtime.pods.get('orphan-uid')?.containers[0]?.state).toBe('exited');
  });

  it('after a restart, feeds the running containers to the sync and kills nothing', async () => {
    const pod = makePod();
    let before = { id: '' };
    const h = start({}, (runtime) => {
      runtime.addSandbox(pod);
      before = runtime.addContainer(pod, 'app');
    });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(4_000);
    const first = h.syncsOf(pod)[0];
    expect(first?.status.containers.map((c) => c.id)).toEqual([before.id]);
    expect(h.runtime.callsOf('killPod')).toHaveLength(0);
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.id).toBe(before.id);
  });

  it('syncs a pod on a PLEG event, long before its periodic resync', async () => {
    const h = start();
    const pod = makePod();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(3_000);
    const syncs = h.syncsOf(pod).length;
    const app = h.runtime.latestContainer(pod.metadata.uid, 'app');
    h.runtime.exitContainer(app?.id ?? '', 1);
    await h.clock.advance(2_000);
    expect(h.syncsOf(pod).length).toBeGreaterThan(syncs);
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.state).toBe('running');
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.restartCount).toBe(1);
  });

  it('resyncs an unchanged pod after jitter(syncFrequency, 0.5)', async () => {
    const h = start();
    const pod = makePod();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    const settled = h.syncsOf(pod).length;
    await h.clock.advance(60_000);
    expect(h.syncsOf(pod).length).toBe(settled);
    await h.clock.advance(20_000);
    expect(h.syncsOf(pod).length).toBe(settled + 1);
  });

  it('shows CrashLoopBackOff with its message, passes one back-off across syncs, and retries after ~10 s', async () => {
    const h = start();
    const pod = makePod();
    h.runtime.addSandbox(pod);
    h.runtime.exitContainer(h.runtime.addContainer(pod, 'app').id, 1);
    const message = `back-off 10s restarting failed container=app pod=${pod.metadata.name}_default(${pod.metadata.uid})`;
    const backoffs = new Set<unknown>();
    h.runtime.onSyncPod = (_pod, _status, crashLoopBackoff) => {
      backoffs.add(crashLoopBackoff);
      return { results: [{ action: 'StartContainer', target: 'app', reason: 'CrashLoopBackOff', message }], error: new Error(message) };
    };
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(1_000);
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status?.containerStatuses?.[0]?.state).toEqual({ waiting: { reason: 'CrashLoopBackOff', message } });
    expect(status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(h.logger.find('Error syncing pod')[0]?.fields.err).toContain('back-off 10s');
    const syncs = h.syncsOf(pod).length;
    await h.clock.advance(13_000);
    expect(h.syncsOf(pod).length).toBe(syncs + 1);
    expect(backoffs.size).toBe(1);
  });

  it('clears a start failure once the container starts', async () => {
    const h = start();
    const pod = makePod();
    let fail = true;
    h.runtime.onSyncPod = (p, status, backoff, rt) => {
      if (fail)
        return {
          results: [{ action: 'StartContainer', target: 'app', reason: 'ErrImagePull', message: 'pull failed' }],
          error: new Error('ErrImagePull'),
        };
      rt.onSyncPod = undefined;
      return rt.syncPod(p, status, backoff);
    };
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(1_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ErrImagePull');
    fail = false;
    await h.clock.advance(15_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]?.state?.running).toBeDefined();
  });

  it('terminates a run-to-completion pod once it succeeded', async () => {
    const h = start();
    const pod = makePod({ restartPolicy: 'Never' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    const app = h.runtime.latestContainer(pod.metadata.uid, 'app');
    h.runtime.exitContainer(app?.id ?? '', 0);
    await h.clock.advance(3_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.phase).toBe('Succeeded');
    expect(h.podWorkers.state(pod.metadata.uid)).toBe('terminated');
    expect(h.runtime.callsOf('killPod')).toHaveLength(1);
    expect(h.runtime.pods.get(pod.metadata.uid)?.sandboxes.every((s) => s.state === 'notready')).toBe(true);
  });

  it('couldHaveRunningContainers: true while a pod runs, false once its worker stopped it for good', async () => {
    const h = start();
    const pod = makePod({ restartPolicy: 'Never' });
    const { uid } = pod.metadata;
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    expect(h.lifecycle.couldHaveRunningContainers(uid)).toBe(true);
    h.runtime.exitContainer(h.runtime.latestContainer(uid, 'app')?.id ?? '', 0);
    await h.clock.advance(3_000);
    expect(h.podWorkers.state(uid)).toBe('terminated');
    expect(h.lifecycle.couldHaveRunningContainers(uid)).toBe(false);
    // A UID the lifecycle never saw could have containers until housekeeping compared the runtime with the sources.
    expect(h.lifecycle.couldHaveRunningContainers('never-seen')).toBe(true);
    h.lifecycle.setSourcesReady();
    await h.housekeeping();
    expect(h.lifecycle.couldHaveRunningContainers('never-seen')).toBe(false);
  });

  it('runs container GC every period, telling it whether all sources are ready', async () => {
    const h = start({ gcPolicy: { minAgeMs: 5_000, maxPerPodContainer: 2, maxContainers: 10 } });
    await h.clock.advance(60_000);
    expect(h.runtime.callsOf('garbageCollect')).toEqual([
      { method: 'garbageCollect', policy: { minAgeMs: 5_000, maxPerPodContainer: 2, maxContainers: 10 }, allSourcesReady: false },
    ]);
    h.lifecycle.setSourcesReady();
    await h.clock.advance(60_000);
    expect(h.runtime.callsOf('garbageCollect')[1]?.allSourcesReady).toBe(true);
  });

  it('runs GC once more when a pass is asked for while one is running (pods forgotten meanwhile are not left for the next period)', async () => {
    const h = start();
    const original = h.runtime.garbageCollect.bind(h.runtime);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    h.runtime.garbageCollect = async (...args: Parameters<FakeContainerRuntime['garbageCollect']>) => {
      calls += 1;
      if (calls === 1) await gate;
      return original(...args);
    };
    await h.clock.advance(60_000); // the periodic pass starts and hangs
    await h.clock.advance(60_000); // asked again while it runs
    expect(calls).toBe(1);
    release();
    await h.clock.advance(1);
    expect(calls).toBe(2);
    await h.clock.advance(1_000);
    expect(calls).toBe(2); // once, not in a loop
  });

  it('notifies status listeners on changes only', async () => {
    const h = start();
    const pod = makePod();
    const phases: string[] = [];
    h.statusManager.onStatusChange((_p, s) => phases.push(s.phase ?? ''));
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(100_000);
    expect(phases[0]).toBe('Pending');
    expect(phases.at(-1)).toBe('Running');
    expect(phases.length).toBeLessThanOrEqual(3);
  });

  it('with everySync also calls a listener after syncs that changed nothing, once per sync', async () => {
    const h = start();
    const pod = makePod();
    const changes: string[] = [];
    const syncs: string[] = [];
    h.statusManager.onStatusChange((_p, s) => changes.push(s.phase ?? ''));
    h.statusManager.onStatusChange((_p, s) => syncs.push(s.phase ?? ''), { everySync: true });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(5_000);
    const changesBefore = changes.length;
    const syncsBefore = syncs.length;
    expect(syncsBefore).toBeGreaterThanOrEqual(changesBefore);
    // A resync (a liveness result changed, nothing else did): the everySync listener hears it, the other does not.
    h.lifecycle.handleProbeResult({
      probeType: 'liveness',
      podUID: pod.metadata.uid,
      containerId: h.runtime.latestContainer(pod.metadata.uid, 'app')?.id ?? '',
    });
    await h.clock.advance(1_000);
    expect(changes.length).toBe(changesBefore);
    expect(syncs.length).toBeGreaterThan(syncsBefore);
    expect(syncs.at(-1)).toBe('Running');
  });

  it('exposes pleg and syncloop health checks; syncloop fails when the loop stalls', async () => {
    const h = start();
    await h.clock.advance(1_000);
    expect(h.lifecycle.healthCheckers.map((c) => c.name)).toEqual(['pleg', 'syncloop']);
    for (const c of h.lifecycle.healthCheckers) expect(() => c.check()).not.toThrow();
    h.clock.setNow(h.clock.now() + 5 * 60_000 + 1);
    const syncloop = h.lifecycle.healthCheckers[1];
    expect(() => syncloop?.check()).toThrow('sync Loop took longer than expected');
  });

  it('starts a UID again once its earlier termination was forgotten (terminated and recreated)', async () => {
    const h = start();
    const pod = makePod();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(2_000);
    h.lifecycle.handlePodUpdate({ op: 'DELETE', source: 'api', pods: [pod] });
    await h.clock.advance(3_000);
    expect(h.podWorkers.state(pod.metadata.uid)).toBe('terminated');
    const syncs = h.syncsOf(pod).length;
    // The same UID comes back: refused while the old worker is remembered...
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(3_000);
    expect(h.syncsOf(pod)).toHaveLength(syncs);
    // ...and started anew by housekeeping once all sources are ready.
    h.lifecycle.setSourcesReady();
    await h.clock.advance(4_000);
    expect(h.syncsOf(pod).length).toBeGreaterThan(syncs);
    expect(h.podWorkers.state(pod.metadata.uid)).toBe('syncing');
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.state).toBe('running');
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.phase).toBe('Running');
  });

  it('fails and stops a pod past its activeDeadlineSeconds', async () => {
    const h = start();
    const pod = makePod({ spec: { activeDeadlineSeconds: 30 } });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(25_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.phase).toBe('Running');
    expect(h.runtime.callsOf('killPod')).toHaveLength(0);
    await h.clock.advance(10_000);
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'PodFailed' });
    expect(h.runtime.callsOf('killPod')).toHaveLength(1);
    expect(h.podWorkers.state(pod.metadata.uid)).toBe('terminated');
  });

  it('refuses to run twice', async () => {
    const h = start();
    await expect(h.lifecycle.run(new AbortController().signal)).rejects.toThrow('already running');
  });

  it('stops every loop and timer when aborted', async () => {
    const h = start();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [makePod()] });
    await h.clock.advance(3_000);
    await h.stop();
    current = undefined;
    expect(h.clock.pendingTimers).toBe(0);
    const calls = h.runtime.calls.length;
    await h.clock.advance(120_000);
    expect(h.runtime.calls.length).toBe(calls);
  });
});

describe('pod lifecycle: volumes and pod directories', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'pod-lifecycle-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  function recordingVolumes(log: string[], fail?: Error): VolumeProvider {
    return {
      async waitForAttachAndMount(pod: Pod) {
        log.push(`mount ${pod.metadata.name}`);
        if (fail !== undefined) throw fail;
      },
      async getMountsForContainer(_pod: Pod, _c: Container): Promise<ContainerMount[]> {
        return [];
      },
      async teardownPod(uid: string) {
        log.push(`teardown ${uid}`);
      },
    };
  }

  it('mounts volumes before the runtime sync, makes the pod dir, and tears both down once the pod is gone', async () => {
    const log: string[] = [];
    const h = start({ volumes: recordingVolumes(log), rootDir: root, mountPoints: async () => [] });
    const pod = makePod({ name: 'vol' });
    const uid = pod.metadata.uid;
    h.runtime.onSyncPod = (p, status, backoff, rt) => {
      log.push('syncPod');
      rt.onSyncPod = undefined;
      return rt.syncPod(p, status, backoff);
    };
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    // The pod dir is real I/O: wait for the worker itself rather than for fake time.
    await h.podWorkers.whenIdle();
    expect(log.slice(0, 2)).toEqual(['mount vol', 'syncPod']);
    expect((await stat(join(root, 'pods', uid, 'volumes'))).isDirectory()).toBe(true);

    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    // Fake time drives the relists; the pod dir work is real I/O, so yield to it between steps.
    for (let i = 0; i < 200 && !log.includes(`teardown ${uid}`); i++) {
      await h.clock.advance(100);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(h.podWorkers.state(uid)).toBe('terminated');
    expect(log).toContain(`teardown ${uid}`);
    await h.housekeeping();
    await expect(stat(join(root, 'pods', uid))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('does not start containers when volumes cannot be mounted', async () => {
    const log: string[] = [];
    const h = start({ volumes: recordingVolumes(log, new Error('volume type nfs not supported yet')) });
    const pod = makePod();
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(1_000);
    expect(h.syncsOf(pod)).toHaveLength(0);
    expect(h.logger.find('Error syncing pod')[0]?.fields.err).toContain('volume type nfs not supported yet');
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ContainerCreating');
  });

  it('never removes an orphaned pod dir with something mounted in it, nor one before sources are ready', async () => {
    const dir = join(root, 'pods', 'gone-uid');
    await mkdir(join(dir, 'volumes'), { recursive: true });
    await mkdir(join(root, 'pods', 'other-gone-uid'), { recursive: true });
    const metrics = new RecordingMetrics();
    const h = start({ rootDir: root, mountPoints: async () => [join(dir, 'volumes', 'x')], metrics });
    await h.housekeeping();
    expect((await stat(dir)).isDirectory()).toBe(true);
    h.lifecycle.setSourcesReady();
    await h.housekeeping();
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(h.logger.find('Failed to clean up orphaned pod directory')[0]?.fields.err).toContain('volumes are still mounted');
    // Upstream's counts of the last sweep: two orphaned pods, one that could not be cleaned.
    expect(metrics.value('kubelet_orphan_pod_cleaned_volumes')).toBe(2);
    expect(metrics.value('kubelet_orphan_pod_cleaned_volumes_errors')).toBe(1);
    await h.housekeeping();
    expect(metrics.value('kubelet_orphan_pod_cleaned_volumes')).toBe(1);
  });
});

describe('pod lifecycle: admission and eviction', () => {
  const underMemoryPressure = {
    admit: ({ pod }: { pod: Pod }) =>
      pod.metadata.name.startsWith('be')
        ? { admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' }
        : { admit: true },
  };

  it('refuses a new pod an admit handler refuses: Failed with the reason and "Pod was rejected: …", never started, even on resync', async () => {
    const h = start({ admitHandlers: [underMemoryPressure] });
    const refused = makePod({ name: 'be-pod' });
    const admitted = makePod({ name: 'ok-pod' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [refused, admitted] });
    expect(h.lifecycle.getPodStatus(refused.metadata.uid)).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'Pod was rejected: The node had condition: [MemoryPressure]. ',
    });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(70_000);
    expect(h.syncsOf(refused)).toHaveLength(0);
    expect(h.runtime.latestContainer(refused.metadata.uid, 'app')).toBeUndefined();
    expect(h.runtime.latestContainer(admitted.metadata.uid, 'app')?.state).toBe('running');
    expect(h.lifecycle.getPodStatus(refused.metadata.uid)).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'Pod was rejected: The node had condition: [MemoryPressure]. ',
    });
    expect(h.lifecycle.getActivePods().map((p) => p.metadata.name)).toEqual(['ok-pod']);
    expect(
      h.lifecycle
        .getPods()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['be-pod', 'ok-pod']);
  });

  it('consults handlers added later, and not for pods already started', async () => {
    const h = start();
    const running = makePod({ name: 'be-running' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [running] });
    await h.clock.advance(2_000);
    const calls: string[] = [];
    h.lifecycle.addPodAdmitHandler({ admit: (a) => (calls.push(a.pod.metadata.name), underMemoryPressure.admit(a)) });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [running, makePod({ name: 'be-new' })] });
    expect(calls).toEqual(['be-new']);
    expect(h.lifecycle.getPodStatus(running.metadata.uid)?.phase).toBe('Running');
  });

  it('a pod admitted with startAfter (pods preempted for it) starts only once that settles, unless removed meanwhile', async () => {
    let release!: () => void;
    const preempted = new Promise<void>((resolve) => (release = resolve));
    const waitFor = ['critical', 'gone'];
    const h = start({
      admitHandlers: [{ admit: (a) => (waitFor.includes(a.pod.metadata.name) ? { admit: true, startAfter: preempted } : { admit: true }) }],
    });
    const critical = makePod({ name: 'critical' });
    const gone = makePod({ name: 'gone' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [critical, gone] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(5_000);
    expect(h.syncsOf(critical)).toHaveLength(0);
    expect(h.runtime.latestContainer(critical.metadata.uid, 'app')).toBeUndefined();
    // Weighed as active while it waits, so that later pods do not take its room.
    expect(h.lifecycle.getActivePods().map((p) => p.metadata.name)).toEqual(['critical', 'gone']);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [gone] });
    release();
    await h.clock.advance(5_000);
    expect(h.runtime.latestContainer(critical.metadata.uid, 'app')?.state).toBe('running');
    expect(h.runtime.latestContainer(gone.metadata.uid, 'app')).toBeUndefined();
  });

  it('evictPod kills with the grace period, resolves once stopped, keeps Failed/Evicted with the condition, and never restarts the pod', async () => {
    const h = start();
    const pod = makePod({ name: 'victim', terminationGracePeriodSeconds: 30 });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    expect(h.lifecycle.getActivePods()).toHaveLength(1);
    const message = 'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ';
    let resolved = false;
    const done = h.lifecycle
      .evictPod(pod.metadata.uid, {
        gracePeriodSeconds: 1,
        reason: 'Evicted',
        message,
        condition: { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message },
      })
      .then(() => (resolved = true));
    expect(h.lifecycle.getActivePods()).toHaveLength(0);
    await h.clock.advance(2_000);
    await done;
    expect(resolved).toBe(true);
    expect(h.runtime.callsOf('killPod')[0]?.gracePeriodOverrideSeconds).toBe(1);
    await h.clock.advance(120_000);
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status).toMatchObject({ phase: 'Failed', reason: 'Evicted', message });
    expect(status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'TerminationByKubelet',
      message,
    });
    expect(h.runtime.callsOf('killPod')).toHaveLength(1);
    expect(h.runtime.latestContainer(pod.metadata.uid, 'app')?.state).not.toBe('running');
    expect(h.lifecycle.podResourcesAreReclaimed(pod.metadata.uid)).toBe(true);
    expect(h.lifecycle.getPods()).toHaveLength(1);
  });

  it('evictPod of an unknown pod rejects with KillFailed', async () => {
    const h = start();
    await expect(h.lifecycle.evictPod('nope', { gracePeriodSeconds: 0, reason: 'Evicted', message: 'x' })).rejects.toMatchObject({
      code: 'KILL_FAILED',
    });
  });
});

describe('pod lifecycle: status manager, probes, events and metrics', () => {
  it('keeps every status in the status manager it is given, which hands each version to its sink', async () => {
    const sink = new FakeStatusSink();
    const statusManager = createStatusManager({ sink });
    const h = start({ statusManager });
    const pod = makePod({ name: 'web' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    expect(statusManager.getPodStatus(pod.metadata.uid)).toBe(h.lifecycle.getPodStatus(pod.metadata.uid));
    expect(sink.latest.get(pod.metadata.uid)?.status.phase).toBe('Running');
    const versions = sink.versionsOf(pod.metadata.uid);
    expect(versions.length).toBeGreaterThanOrEqual(2);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
  });

  it('marks the final status finished once the terminated pod released its volumes and cgroup (upstream TerminatePod)', async () => {
    const sink = new FakeStatusSink();
    const statusManager = createStatusManager({ sink });
    const finished = (uid: string): boolean => sink.latest.get(uid)?.podIsFinished === true;
    const order: string[] = [];
    const volumes: VolumeProvider = {
      waitForAttachAndMount: () => Promise.resolve(),
      getMountsForContainer: () => Promise.resolve([]),
      teardownPod: async (uid) => void order.push(`teardown (finished: ${finished(uid)})`),
    };
    const podCgroups: PodCgroupsHook = {
      ensureExists: () => Promise.resolve(),
      destroy: async (uid) => void order.push(`destroy cgroup (finished: ${finished(uid)})`),
    };
    const h = start({ statusManager, volumes, podCgroups });
    const pod = makePod({ restartPolicy: 'Never' });
    const { uid } = pod.metadata;
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    expect(finished(uid)).toBe(false);
    h.runtime.exitContainer(h.runtime.latestContainer(uid, 'app')?.id ?? '', 0);
    await h.clock.advance(3_000);
    expect(h.podWorkers.state(uid)).toBe('terminated');
    expect(order).toEqual(['teardown (finished: false)', 'destroy cgroup (finished: false)']);
    const last = sink.latest.get(uid);
    expect(last).toMatchObject({ podIsFinished: true, status: { phase: 'Succeeded' } });
    expect(sink.versionsOf(uid).at(-1)).toBe(last?.version);
    expect(statusManager.getVersionedPodStatus(uid)).toBe(last);
  });

  it('reports a container that never started as terminated (ContainerStatusUnknown) in the final status of a deleted pod', async () => {
    const h = start();
    const pod = makePod({ terminationGracePeriodSeconds: 1 });
    h.runtime.onSyncPod = () => ({
      results: [{ action: 'StartContainer', target: 'app', reason: 'ErrImagePull', message: 'pull failed' }],
      error: new Error('ErrImagePull'),
    });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(1_000);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('ErrImagePull');
    const deleting: Pod = {
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: '2026-01-01T00:00:01Z', deletionGracePeriodSeconds: 1 },
    };
    h.lifecycle.handlePodUpdate({ op: 'DELETE', source: 'api', pods: [deleting] });
    await h.clock.advance(3_000);
    expect(h.podWorkers.state(pod.metadata.uid)).toBe('terminated');
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status?.phase).toBe('Failed');
    expect(status?.containerStatuses?.[0]?.state).toEqual({
      terminated: {
        exitCode: 137,
        reason: 'ContainerStatusUnknown',
        message: 'The container could not be located when the pod was terminated',
      },
    });
  });

  it('a startup change sets started and, as a status generation would, ready; no other container changes', async () => {
    let started = false;
    const h = start({ startup: { isStarted: () => started } });
    const pod = makePod({ name: 'web', containers: [{ name: 'app', image: 'busybox', startupProbe: { exec: { command: ['true'] } } }] });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    const app = (): ContainerStatus | undefined => h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0];
    expect(app()).toMatchObject({ started: false, ready: false });
    started = true;
    h.lifecycle.handleProbeResult({
      probeType: 'startup',
      podUID: pod.metadata.uid,
      containerId: h.runtime.latestContainer(pod.metadata.uid, 'app')?.id ?? '',
    });
    expect(app()).toMatchObject({ started: true, ready: true });
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it("a sidecar's startup change regenerates the whole status (its phase and Initialized depend on it), a regular container's does not", async () => {
    let started = false;
    const asked: string[] = [];
    const readiness = { isReady: (_id: string, ref?: { containerName: string }) => (asked.push(ref?.containerName ?? ''), true) };
    const h = start({ startup: { isStarted: () => started }, readiness });
    const probe = { startupProbe: { exec: { command: ['true'] } } };
    const pod = makePod({
      name: 'web',
      initContainers: [{ name: 'side', restartPolicy: 'Always', ...probe }],
      containers: [{ name: 'app', ...probe }],
    });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    await h.clock.advance(2_000);
    started = true;
    asked.length = 0;
    h.lifecycle.handleProbeResult({
      probeType: 'startup',
      podUID: pod.metadata.uid,
      containerId: h.runtime.latestContainer(pod.metadata.uid, 'side')?.id ?? '',
    });
    expect(asked.sort()).toEqual(['app', 'side']);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.initContainerStatuses?.[0]).toMatchObject({ started: true, ready: true });
    asked.length = 0;
    h.lifecycle.handleProbeResult({
      probeType: 'startup',
      podUID: pod.metadata.uid,
      containerId: h.runtime.latestContainer(pod.metadata.uid, 'app')?.id ?? '',
    });
    expect(asked).toEqual(['app']);
    expect(h.lifecycle.getPodStatus(pod.metadata.uid)?.containerStatuses?.[0]).toMatchObject({ started: true, ready: true });
  });

  it('records a refused admission and a failed mount as Warning events on the pod', async () => {
    const recorder = new RecordingEventRecorder();
    const refuse = { admit: () => ({ admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu" }) };
    const h = start({ recorder, admitHandlers: [refuse] });
    const refused = makePod({ name: 'refused' });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [refused] });
    expect(recorder.lines()).toEqual(["Warning OutOfcpu Node didn't have enough resource: cpu"]);
    expect(recorder.events[0]?.object).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      name: 'refused',
      namespace: 'default',
      uid: refused.metadata.uid,
    });

    const recorder2 = new RecordingEventRecorder();
    const volumes: VolumeProvider = {
      waitForAttachAndMount: () => Promise.reject(new Error('no such volume type')),
      getMountsForContainer: () => Promise.resolve([]),
      teardownPod: () => Promise.resolve(),
    };
    await h.stop();
    const h2 = start({ recorder: recorder2, volumes });
    h2.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [makePod({ name: 'vol' })] });
    await h2.clock.advance(1_000);
    expect(recorder2.find('FailedMount', 'vol')[0]?.message).toBe('Unable to attach or mount volumes: no such volume type');
  });

  it('records pod worker durations, desired pods, PLEG relists, and orphaned and restarted pods', async () => {
    const metrics = new RecordingMetrics();
    const h = start({ metrics }, (runtime) => {
      const orphan = { uid: 'orphan-uid', name: 'old', namespace: 'default' };
      runtime.addSandbox(orphan);
      runtime.addContainer(orphan, 'app');
    });
    const seen = new Date(h.clock.now()).toISOString();
    const pod = makePod({ name: 'web', annotations: { 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': seen } });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(3_000);
    expect(metrics.value('kubelet_desired_pods', { static: 'true' })).toBe(1);
    // Once, when a sync first finds the pod running; upstream's buckets.
    expect(metrics.observations('kubelet_pod_start_duration_seconds')).toHaveLength(1);
    expect(metrics.observations('kubelet_pod_start_duration_seconds')[0]).toBeLessThanOrEqual(3);
    expect(metrics.buckets('kubelet_pod_start_duration_seconds')?.slice(0, 4)).toEqual([0.5, 1, 2, 3]);
    expect(metrics.value('kubelet_running_pods')).toBeGreaterThanOrEqual(1);
    expect(metrics.observations('kubelet_pod_worker_duration_seconds', { operation_type: 'create' }).length).toBeGreaterThanOrEqual(1);
    expect(metrics.observations('kubelet_pleg_relist_duration_seconds').length).toBeGreaterThanOrEqual(2);
    expect(metrics.observations('kubelet_pleg_relist_interval_seconds')[0]).toBe(1);
    expect(metrics.value('kubelet_orphaned_runtime_pods_total')).toBeGreaterThanOrEqual(1);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [pod] });
    await h.clock.advance(3_000);
    expect(metrics.value('kubelet_desired_pods', { static: 'true' })).toBe(0);
    expect(metrics.observations('kubelet_pod_worker_duration_seconds', { operation_type: 'kill' }).length).toBeGreaterThanOrEqual(1);
  });

  it('counts the ephemeral containers of the pods it has (kubelet_managed_ephemeral_containers)', async () => {
    const metrics = new RecordingMetrics();
    const h = start({ metrics });
    const debug = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `debug-${i}`, image: 'busybox' }));
    const pod = makePod({ name: 'web', spec: { ephemeralContainers: debug(2) } as Partial<Pod['spec']> });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [makePod({ name: 'plain' })] });
    expect(metrics.value('kubelet_managed_ephemeral_containers')).toBe(2);
    const debugged = { ...pod, spec: { ...pod.spec, ephemeralContainers: debug(3) } };
    h.lifecycle.handlePodUpdate({ op: 'UPDATE', source: 'api', pods: [debugged] });
    expect(metrics.value('kubelet_managed_ephemeral_containers')).toBe(3);
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'api', pods: [debugged] });
    expect(metrics.value('kubelet_managed_ephemeral_containers')).toBe(0);
    await h.clock.advance(1_000);
  });

  it('tells the pod startup latency tracker of the statuses it sets and of the pods it removes', async () => {
    const metrics = new RecordingMetrics();
    const clock = new FakeClock();
    const podStartupTracker = createPodStartupLatencyTracker({ clock, metrics });
    const h = start({ podStartupTracker }, undefined, clock);
    const base = makePod({ name: 'web', annotations: { 'kubernetes.io/config.source': 'api' } });
    const pod: Pod = { ...base, metadata: { ...base.metadata, creationTimestamp: new Date(clock.now() - 1_000).toISOString() } };
    podStartupTracker.observedPodOnWatch(pod, clock.now());
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(2_000);
    const status = h.lifecycle.getPodStatus(pod.metadata.uid);
    expect(status?.phase).toBe('Running');
    // The API server sends the status back 500 ms later: the pod was created 3.5 s before.
    podStartupTracker.observedPodOnWatch({ ...pod, status }, clock.now() + 500);
    expect(metrics.observations('kubelet_pod_start_sli_duration_seconds')).toEqual([3.5]);

    const removed = { ...pod, metadata: { ...pod.metadata, uid: 'uid-removed', name: 'removed' } };
    podStartupTracker.observedPodOnWatch(removed, clock.now());
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [removed] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(2_000);
    const removedStatus = h.lifecycle.getPodStatus('uid-removed');
    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'api', pods: [removed] });
    await h.clock.advance(10_000);
    podStartupTracker.observedPodOnWatch({ ...removed, status: removedStatus }, clock.now());
    expect(metrics.observations('kubelet_pod_start_sli_duration_seconds')).toHaveLength(1);
  });

  it("tells the pod startup latency tracker of the init containers' runs the runtime shows", async () => {
    const metrics = new RecordingMetrics();
    const clock = new FakeClock();
    const t = clock.now();
    const podStartupTracker = createPodStartupLatencyTracker({ clock, metrics });
    const base = makePod({ name: 'init', initContainers: [{ name: 'setup' }], annotations: { 'kubernetes.io/config.source': 'api' } });
    const pod: Pod = { ...base, metadata: { ...base.metadata, creationTimestamp: new Date(t - 4_000).toISOString() } };
    // The init container ran from 3 s to 1 s before now (a pod the kubelet was restarted under).
    const h = start(
      { podStartupTracker },
      (runtime) => {
        runtime.addSandbox(pod);
        runtime.addContainer(pod, 'setup', { state: 'exited', exitCode: 0, startedAt: t - 3_000, finishedAt: t - 1_000 });
      },
      clock,
    );
    podStartupTracker.observedPodOnWatch(pod, t);
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [pod] });
    await h.clock.advance(2_000);
    podStartupTracker.observedPodOnWatch({ ...pod, status: h.lifecycle.getPodStatus(pod.metadata.uid) }, t + 2_500);
    // 1 s before the init container, 3.5 s after it; the total counts all 6.5 s.
    expect(metrics.observations('kubelet_pod_start_sli_duration_seconds')).toEqual([4.5]);
    expect(metrics.observations('kubelet_pod_start_total_duration_seconds')).toEqual([6.5]);
  });

  it('counts working pods by lifecycle, config and static, and active pods by static, at each housekeeping (upstream HandlePodCleanups)', async () => {
    const metrics = new RecordingMetrics();
    const h = start({ metrics }, (runtime) => {
      const orphan = { uid: 'orphan-uid', name: 'old', namespace: 'default' };
      runtime.addSandbox(orphan);
      runtime.addContainer(orphan, 'app');
    });
    const staticPod = makePod({ name: 'static', annotations: { 'kubernetes.io/config.source': 'file' } });
    const apiPod = makePod({ name: 'api', annotations: { 'kubernetes.io/config.source': 'api' } });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [staticPod] });
    h.lifecycle.handlePodUpdate({ op: 'ADD', source: 'api', pods: [apiPod] });
    h.lifecycle.setSourcesReady();
    await h.clock.advance(3_000); // one housekeeping pass, at 2 s
    const working = (lifecycle: string, config: string, isStatic: string): number | undefined =>
      metrics.value('kubelet_working_pods', { lifecycle, config, static: isStatic });
    expect(working('sync', 'desired', 'true')).toBe(1);
    expect(working('sync', 'desired', '')).toBe(1);
    // The runtime pod no source has: killed by that pass, without a spec.
    expect(working('terminating', 'runtime_only', 'unknown')).toBe(1);
    // Every combination upstream reports, zero included.
    expect(metrics.samples('kubelet_working_pods')).toHaveLength(15);
    expect(working('terminated', 'orphan', 'true')).toBe(0);
    expect(metrics.value('kubelet_active_pods', { static: 'true' })).toBe(1);
    expect(metrics.value('kubelet_active_pods', { static: '' })).toBe(1);
    // Upstream's static label values: "true" and "".
    expect(metrics.value('kubelet_desired_pods', { static: '' })).toBe(1);

    h.lifecycle.handlePodUpdate({ op: 'REMOVE', source: 'file', pods: [staticPod] });
    await h.clock.advance(4_000);
    expect(working('sync', 'desired', 'true')).toBe(0);
    expect(working('sync', 'desired', '')).toBe(1);
    expect(metrics.value('kubelet_active_pods', { static: 'true' })).toBe(0);
    expect(metrics.value('kubelet_active_pods', { static: '' })).toBe(1);
  });
});
