import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger, TimerHandle } from '@kubelet-ts/common';
import type { StatusManager } from '@kubelet-ts/status-manager';
import { PodLifecycleError } from '../errors.js';
import type { HealthChecker, HealthCheckResult } from '../health.js';
import { toHealthChecker } from '../health.js';
import type { PodLifecycleEvent, PodLifecycleEventGenerator } from '../pleg.js';
import type { PodWorkers } from '../pod-workers.js';
import { pastActiveDeadline } from '../status/generate.js';
import type { PodUpdate } from '../types.js';
import type { Admission } from './admission.js';
import type { Dispatcher } from './dispatch.js';
import { podKey } from './pod-manager.js';
import type { PodManager } from './pod-manager.js';
import type { WorkQueue } from './work-queue.js';

const SYNC_TICK_MS = 1_000;

export interface SyncLoopOptions {
  pods: PodManager;
  podWorkers: PodWorkers;
  pleg: PodLifecycleEventGenerator;
  statusManager: Pick<StatusManager, 'getPodStatus'>;
  workQueue: WorkQueue;
  admission: Pick<Admission, 'admit'>;
  dispatch: Dispatcher['dispatch'];
  /** One housekeeping pass (every housekeepingIntervalMs), and the one running at shutdown. */
  housekeeping: () => Promise<void>;
  housekeepingRunning: () => Promise<void> | undefined;
  garbageCollect: () => Promise<void>;
  syncFrequencyMs: number;
  housekeepingIntervalMs: number;
  containerGCPeriodMs: number;
  clock: Clock;
  logger: Logger;
}

/** Upstream Kubelet.syncLoop / syncLoopIteration: pod updates, PLEG events, the sync ticker, housekeeping and GC. */
export interface SyncLoop {
  /** Upstream HandlePodAdditions, HandlePodUpdates, HandlePodRemoves and HandlePodReconcile. */
  handlePodUpdate(update: PodUpdate): void;
  run(signal: AbortSignal): Promise<void>;
  /** The `syncloop` health check. */
  readonly healthChecker: HealthChecker;
}

const byCreation = (pods: Pod[]): Pod[] =>
  [...pods].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));

export function createSyncLoop(o: SyncLoopOptions): SyncLoop {
  const { pods, podWorkers, clock, logger, dispatch } = o;
  let loopEntryTime: number | undefined;
  let started = false;

  // A pod that waited for the pods preempted for it: started unless a source removed it meanwhile.
  const startAdmitted = (uid: string): void => {
    const pod = pods.getPodByUID(uid);
    if (pod !== undefined && !podWorkers.isPodKnown(uid)) dispatch(pod, 'create');
  };

  const handlePodUpdate = (update: PodUpdate): void => {
    logger.info(`SyncLoop ${update.op}`, { source: update.source, pods: update.pods.map(podKey) });
    switch (update.op) {
      case 'ADD':
        for (const pod of byCreation(update.pods)) {
          pods.updatePod(pod);
          const decision = o.admission.admit(pod);
          if (!decision.admit) continue;
          if (decision.startAfter === undefined) dispatch(pod, 'create');
          else void decision.startAfter.then(() => startAdmitted(pod.metadata.uid));
        }
        break;
      case 'UPDATE':
        for (const pod of update.pods) {
          pods.updatePod(pod);
          dispatch(pod, 'update');
        }
        break;
      case 'DELETE':
        // Graceful deletion: the pod stays known until REMOVE, but stops now with its (deletion) grace period.
        for (const pod of update.pods) {
          pods.updatePod(pod);
          dispatch(pod, 'kill');
        }
        break;
      case 'REMOVE':
        // The source no longer has it (for a static pod: its manifest is gone): stop it; GC removes its containers.
        for (const pod of update.pods) {
          pods.removePod(pod.metadata.uid);
          dispatch(pod, 'kill');
        }
        break;
      case 'RECONCILE':
        // Only the status changed at the source: remember the pod, nothing to run.
        for (const pod of update.pods) if (pods.hasPod(pod.metadata.uid)) pods.updatePod(pod);
        break;
    }
  };

  const onPlegEvent = (event: PodLifecycleEvent): void => {
    // Upstream isSyncPodWorthy: everything but a removal.
    if (event.type === 'ContainerRemoved') return;
    const pod = pods.getPodByUID(event.id);
    if (pod !== undefined) {
      dispatch(pod, 'sync');
      return;
    }
    // A terminating pod no source has any more still needs its worker to see the change.
    if (podWorkers.isPodKnown(event.id)) podWorkers.resync(event.id);
  };

  const syncTick = (): void => {
    const now = clock.now();
    loopEntryTime = now;
    const due = new Set(o.workQueue.getWork());
    // Upstream getPodsToSync: also every running pod past its activeDeadlineSeconds.
    for (const pod of pods.getPods()) {
      const uid = pod.metadata.uid;
      if (podWorkers.state(uid) === 'syncing' && pastActiveDeadline(pod, o.statusManager.getPodStatus(uid)?.startTime, now)) due.add(uid);
    }
    for (const uid of due) {
      const pod = pods.getPodByUID(uid);
      if (pod !== undefined) dispatch(pod, 'sync');
      else podWorkers.resync(uid);
    }
  };

  // Upstream syncLoopHealthCheck: max(2 × resync interval, 5 min) since the loop was last entered.
  const syncLoopMaxWaitMs = Math.max(2 * o.syncFrequencyMs, 5 * 60_000);
  const syncLoopHealthy = (): HealthCheckResult => {
    if (loopEntryTime !== undefined && clock.now() > loopEntryTime + syncLoopMaxWaitMs) {
      return { healthy: false, message: 'sync Loop took longer than expected' };
    }
    return { healthy: true };
  };

  return {
    handlePodUpdate,
    async run(signal) {
      if (started) throw new PodLifecycleError('SYNC_FAILED', 'the pod lifecycle is already running');
      started = true;
      logger.info('Starting kubelet main sync loop');
      const unwatch = o.pleg.watch(onPlegEvent);
      const plegDone = o.pleg.run(signal);
      const timers: TimerHandle[] = [
        clock.setInterval(syncTick, SYNC_TICK_MS),
        clock.setInterval(() => void o.housekeeping(), o.housekeepingIntervalMs),
        clock.setInterval(() => void o.garbageCollect(), o.containerGCPeriodMs),
      ];
      loopEntryTime = clock.now();
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      for (const t of timers) clock.clearInterval(t);
      unwatch();
      podWorkers.stop();
      await plegDone;
      await Promise.all([podWorkers.whenIdle(), o.housekeepingRunning()]);
      logger.info('Kubelet main sync loop stopped');
    },
    healthChecker: toHealthChecker('syncloop', syncLoopHealthy),
  };
}
