import { PodLifecycleError } from './errors.js';
import type { Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import type { RunningPod, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { createPodStatusCache, emptyRuntimePodStatus } from './pod-cache.js';
import type { PodStatusCache } from './pod-cache.js';
import { createPodWorkers } from './pod-workers.js';
import type { PodSyncer, PodUpdateType, PodWorkers } from './pod-workers.js';
import { makePod } from './testing/make-pod.js';

type Call =
  | { fn: 'syncPod'; uid: string; updateType: PodUpdateType; version: string | undefined; signal: AbortSignal }
  | { fn: 'syncTerminatingPod'; uid: string; grace: number }
  | { fn: 'syncTerminatingRuntimePod'; uid: string; grace: number | undefined }
  | { fn: 'syncTerminatedPod'; uid: string };

/** A syncer that records calls, can hold a call open until released, and can fail or report terminal. */
class RecordingSyncer implements PodSyncer {
  readonly calls: Call[] = [];
  active = 0;
  maxActive = 0;
  hold = false;
  failNext: Error | undefined;
  terminalNext = false;
  /** What syncTerminatingPod resolves with (the status read once everything stopped), if anything. */
  stoppedStatus: RuntimePodStatus | undefined;
  /** The status each syncTerminatedPod was given. */
  readonly terminatedWith: RuntimePodStatus[] = [];
  #releases: Array<() => void> = [];

  release(): void {
    const pending = this.#releases;
    this.#releases = [];
    for (const r of pending) r();
  }

  async #run<T>(call: Call, signal: AbortSignal | undefined, result: T): Promise<T> {
    this.calls.push(call);
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.hold) {
        await new Promise<void>((resolve, reject) => {
          this.#releases.push(resolve);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        });
      }
      const err = this.failNext;
      this.failNext = undefined;
      if (err !== undefined) throw err;
      return result;
    } finally {
      this.active -= 1;
    }
  }

  syncPod(updateType: PodUpdateType, pod: Pod, _status: RuntimePodStatus, signal: AbortSignal): Promise<boolean> {
    const terminal = this.terminalNext;
    this.terminalNext = false;
    return this.#run({ fn: 'syncPod', uid: pod.metadata.uid, updateType, version: pod.metadata.resourceVersion, signal }, signal, terminal);
  }
  syncTerminatingPod(pod: Pod, _status: RuntimePodStatus, grace: number, signal: AbortSignal): Promise<RuntimePodStatus | void> {
    return this.#run({ fn: 'syncTerminatingPod', uid: pod.metadata.uid, grace }, signal, this.stoppedStatus);
  }
  syncTerminatingRuntimePod(running: RunningPod, grace: number | undefined, signal: AbortSignal): Promise<void> {
    return this.#run({ fn: 'syncTerminatingRuntimePod', uid: running.uid, grace }, signal, undefined);
  }
  syncTerminatedPod(pod: Pod, status: RuntimePodStatus, signal: AbortSignal): Promise<void> {
    this.terminatedWith.push(status);
    return this.#run({ fn: 'syncTerminatedPod', uid: pod.metadata.uid }, signal, undefined);
  }
}

interface Harness {
  clock: FakeClock;
  metrics: RecordingMetrics;
  cache: PodStatusCache;
  syncer: RecordingSyncer;
  workers: PodWorkers;
  requeued: Array<{ uid: string; delayMs: number }>;
  logger: RecordingLogger;
  /** Simulates a PLEG relist: the cache is declared current, strictly after the last sync. */
  relist(): Promise<void>;
}

function harness(): Harness {
  const clock = new FakeClock();
  const cache = createPodStatusCache();
  const syncer = new RecordingSyncer();
  const requeued: Array<{ uid: string; delayMs: number }> = [];
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const workers = createPodWorkers({
    syncer,
    cache,
    clock,
    logger,
    metrics,
    requeue: (uid, delayMs) => requeued.push({ uid, delayMs }),
    random: () => 0.5,
  });
  const relist = async (): Promise<void> => {
    await clock.advance(1);
    cache.updateTime(clock.now());
    await clock.advance(0);
  };
  return { clock, metrics, cache, syncer, workers, requeued, logger, relist };
}

function withVersion(pod: Pod, version: string): Pod {
  return { ...pod, metadata: { ...pod.metadata, resourceVersion: version } };
}

const fns = (h: Harness): string[] => h.syncer.calls.map((c) => c.fn);

describe('pod workers', () => {
  it('syncs a created pod with the cached runtime status and requeues it after jitter(resync, 0.5)', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.set(pod.metadata.uid, { ...emptyRuntimePodStatus(pod.metadata.uid), name: pod.metadata.name }, undefined, h.clock.now());
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    expect(h.syncer.calls).toEqual([expect.objectContaining({ fn: 'syncPod', uid: pod.metadata.uid, updateType: 'create' })]);
    // jitter(60 s, 0.5) with random 0.5 = 75 s
    expect(h.requeued).toEqual([{ uid: pod.metadata.uid, delayMs: 75_000 }]);
    expect(h.workers.state(pod.metadata.uid)).toBe('syncing');
  });

  it("observes a pod's containers once, when its worker first syncs it (kubelet_containers_per_pod_count)", async () => {
    const h = harness();
    const pod = makePod({ containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    await h.relist();
    h.workers.updatePod({ updateType: 'sync', pod });
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncPod', 'syncPod']);
    expect(h.metrics.observations('kubelet_containers_per_pod_count')).toEqual([3]);
    expect(h.metrics.buckets('kubelet_containers_per_pod_count')).toEqual([1, 2, 4, 8, 16]);
  });

  it('never runs two syncs of one pod at once and lets the latest pending update win', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.syncer.hold = true;
    h.workers.updatePod({ updateType: 'create', pod: withVersion(pod, '1') });
    await h.clock.advance(0);
    h.workers.updatePod({ updateType: 'update', pod: withVersion(pod, '2') });
    h.workers.updatePod({ updateType: 'update', pod: withVersion(pod, '3') });
    expect(h.syncer.calls).toHaveLength(1);
    h.syncer.hold = false;
    h.syncer.release();
    await h.clock.advance(0);
    // The second sync waits for a status newer than the end of the first one.
    expect(h.syncer.calls).toHaveLength(1);
    await h.relist();
    await h.workers.whenIdle();
    const versions = h.syncer.calls.map((c) => (c.fn === 'syncPod' ? c.version : undefined));
    expect(versions).toEqual(['1', '3']);
    expect(h.syncer.maxActive).toBe(1);
  });

  it('does not sync on a status older than the previous sync', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    await h.clock.advance(5);
    // A status read before the first sync ended must not release the second one.
    h.cache.set(pod.metadata.uid, emptyRuntimePodStatus(pod.metadata.uid), undefined, 0);
    h.workers.updatePod({ updateType: 'sync', pod });
    await h.clock.advance(0);
    expect(fns(h)).toEqual(['syncPod']);
    h.cache.set(pod.metadata.uid, emptyRuntimePodStatus(pod.metadata.uid), undefined, h.clock.now());
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncPod', 'syncPod']);
  });

  it('terminates a killed pod with the spec grace period, then cleans it up once, and ignores later updates', async () => {
    const h = harness();
    const pod = makePod({ terminationGracePeriodSeconds: 7 });
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    h.workers.updatePod({ updateType: 'kill', pod });
    expect(h.workers.isPodTerminationRequested(pod.metadata.uid)).toBe(true);
    for (let i = 0; i < 3; i++) await h.relist();
    await h.workers.whenIdle();
    expect(h.syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    expect(h.syncer.calls[1]).toEqual({ fn: 'syncTerminatingPod', uid: pod.metadata.uid, grace: 7 });
    expect(h.workers.state(pod.metadata.uid)).toBe('terminated');
    expect(h.workers.shouldPodContentBeRemoved(pod.metadata.uid)).toBe(true);
    expect(h.workers.couldHaveRunningContainers(pod.metadata.uid)).toBe(false);

    h.workers.updatePod({ updateType: 'update', pod });
    h.workers.updatePod({ updateType: 'sync', pod });
    await h.relist();
    await h.workers.whenIdle();
    expect(h.syncer.calls).toHaveLength(3);
  });

  it('cleans a terminated pod up with the status its termination read, without waiting for a relist', async () => {
    const h = harness();
    const pod = makePod({ terminationGracePeriodSeconds: 1 });
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    h.syncer.stoppedStatus = { ...emptyRuntimePodStatus(pod.metadata.uid, h.clock.now()), name: 'read-after-kill' };
    h.workers.updatePod({ updateType: 'kill', pod });
    // One relist for the termination; none after it.
    await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    expect(h.syncer.terminatedWith.map((st) => st.name)).toEqual(['read-after-kill']);
  });

  it('refuses to restart a terminated UID until housekeeping forgets it (terminatedAndRecreated)', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'kill', pod });
    for (let i = 0; i < 2; i++) await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncTerminatingPod', 'syncTerminatedPod']);

    h.workers.updatePod({ updateType: 'create', pod });
    await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncTerminatingPod', 'syncTerminatedPod']);
    expect(h.logger.find('requested to restart with same UID')).toHaveLength(1);

    const known = h.workers.syncKnownPods([pod]);
    expect(known.get(pod.metadata.uid)).toBe('terminatedAndRecreated');
    expect(h.workers.isPodKnown(pod.metadata.uid)).toBe(false);
    h.workers.updatePod({ updateType: 'create', pod });
    await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncTerminatingPod', 'syncTerminatedPod', 'syncPod']);
  });

  it('cancels an in-flight sync when termination is requested, then terminates', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.syncer.hold = true;
    h.workers.updatePod({ updateType: 'create', pod });
    await h.clock.advance(0);
    const first = h.syncer.calls[0];
    expect(first?.fn).toBe('syncPod');
    h.syncer.hold = false;
    h.workers.updatePod({ updateType: 'kill', pod, gracePeriodOverrideSeconds: 3 });
    await h.clock.advance(0);
    expect(first?.fn === 'syncPod' && first.signal.aborted).toBe(true);
    for (let i = 0; i < 2; i++) await h.relist();
    await h.workers.whenIdle();
    expect(h.syncer.calls.slice(1)).toEqual([
      { fn: 'syncTerminatingPod', uid: pod.metadata.uid, grace: 3 },
      { fn: 'syncTerminatedPod', uid: pod.metadata.uid },
    ]);
    // An aborted sync is not an error: nothing was requeued with back-off.
    expect(h.logger.find('Error syncing pod')).toHaveLength(0);
  });

  it('lets a later kill shorten the grace period but never lengthen it', async () => {
    const h = harness();
    const pod = makePod({ terminationGracePeriodSeconds: 30 });
    h.syncer.hold = true;
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'kill', pod, gracePeriodOverrideSeconds: 20 });
    h.workers.updatePod({ updateType: 'kill', pod, gracePeriodOverrideSeconds: 40 });
    h.workers.updatePod({ updateType: 'kill', pod, gracePeriodOverrideSeconds: 5 });
    expect(h.workers.workers()[0]?.gracePeriodSeconds).toBe(5);
    h.syncer.hold = false;
    h.syncer.release();
    for (let i = 0; i < 3; i++) await h.relist();
    await h.workers.whenIdle();
    const terminating = h.syncer.calls.filter((c) => c.fn === 'syncTerminatingPod');
    // The three kills coalesced before the worker ran: it terminates once, with the shortest grace.
    expect(terminating.map((c) => (c.fn === 'syncTerminatingPod' ? c.grace : -1))).toEqual([5]);
  });

  it('uses the deletion grace period of a pod being deleted', async () => {
    const h = harness();
    const pod = makePod({ terminationGracePeriodSeconds: 30 });
    const deleting: Pod = {
      ...pod,
      metadata: { ...pod.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 2 },
    };
    h.cache.updateTime(h.clock.now());
    h.workers.updatePod({ updateType: 'update', pod: deleting });
    for (let i = 0; i < 2; i++) await h.relist();
    await h.workers.whenIdle();
    expect(h.syncer.calls[0]).toEqual({ fn: 'syncTerminatingPod', uid: pod.metadata.uid, grace: 2 });
  });

  it('requeues a failed sync after jitter(10 s, 0.5) and logs the error', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.syncer.failNext = new Error('image pull failed');
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    expect(h.requeued).toEqual([{ uid: pod.metadata.uid, delayMs: 12_500 }]);
    expect(h.logger.find('Error syncing pod')[0]?.fields).toMatchObject({ podUID: pod.metadata.uid, err: 'image pull failed' });
    expect(h.workers.state(pod.metadata.uid)).toBe('syncing');
  });

  it('requeues a failed sync right when its back-off ends when the error carries the hint (CrashLoopBackOff)', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.syncer.failNext = new PodLifecycleError('SYNC_FAILED', 'back-off 10s restarting failed container', { retryAfterMs: 7_000 });
    h.workers.updatePod({ updateType: 'create', pod });
    await h.workers.whenIdle();
    expect(h.requeued).toEqual([{ uid: pod.metadata.uid, delayMs: 7_050 }]);
  });

  it('moves a pod whose sync reports a terminal phase to terminating and terminated by itself', async () => {
    const h = harness();
    const pod = makePod({ restartPolicy: 'Never' });
    h.cache.updateTime(h.clock.now());
    h.syncer.terminalNext = true;
    h.workers.updatePod({ updateType: 'create', pod });
    for (let i = 0; i < 3; i++) await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    expect(h.requeued).toEqual([]);
  });

  it('kills a pod known only from the runtime without a cleanup phase', async () => {
    const h = harness();
    const running: RunningPod = { uid: 'orphan', name: 'o', namespace: 'default', sandboxes: [], containers: [] };
    h.workers.updatePod({ updateType: 'kill', runningPod: running, gracePeriodOverrideSeconds: 1 });
    await h.workers.whenIdle();
    expect(h.syncer.calls).toEqual([{ fn: 'syncTerminatingRuntimePod', uid: 'orphan', grace: 1 }]);
    expect(h.workers.shouldPodContentBeRemoved('orphan')).toBe(true);
    h.workers.syncKnownPods([]);
    expect(h.workers.isPodKnown('orphan')).toBe(false);
  });

  it('retries a failed termination through resync and forgets finished workers no source wants', async () => {
    const h = harness();
    const pod = makePod();
    h.cache.updateTime(h.clock.now());
    h.syncer.failNext = new Error('kill failed');
    h.workers.updatePod({ updateType: 'kill', pod });
    await h.workers.whenIdle();
    expect(h.requeued).toEqual([{ uid: pod.metadata.uid, delayMs: 12_500 }]);
    expect(h.workers.state(pod.metadata.uid)).toBe('terminating');
    expect(h.workers.resync(pod.metadata.uid)).toBe(true);
    for (let i = 0; i < 2; i++) await h.relist();
    await h.workers.whenIdle();
    expect(fns(h)).toEqual(['syncTerminatingPod', 'syncTerminatingPod', 'syncTerminatedPod']);

    // Still desired: kept (its UID stays refused); once no source has it: forgotten.
    expect(h.workers.syncKnownPods([pod]).get(pod.metadata.uid)).toBe('terminated');
    expect(h.workers.syncKnownPods([]).has(pod.metadata.uid)).toBe(false);
    expect(h.workers.resync(pod.metadata.uid)).toBe(false);
  });

  it('treats unknown pods as possibly running until the first syncKnownPods', () => {
    const h = harness();
    expect(h.workers.couldHaveRunningContainers('x')).toBe(true);
    expect(h.workers.shouldPodContentBeRemoved('x')).toBe(false);
    h.workers.syncKnownPods([]);
    expect(h.workers.couldHaveRunningContainers('x')).toBe(false);
    expect(h.workers.shouldPodContentBeRemoved('x')).toBe(true);
  });
});
