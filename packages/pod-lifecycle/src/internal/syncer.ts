import type { Pod } from '@kubelet-ts/api';
import { ConfigFirstSeenAnnotationKey, EventReason } from '@kubelet-ts/api';
import type { Backoff, Clock, EventRecorder, Histogram, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, EventType } from '@kubelet-ts/common';
import type { ContainerRuntime, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { toRunningPodWithAllContainers } from '@kubelet-ts/container-runtime';
import type { StatusManager } from '@kubelet-ts/status-manager';
import { PodLifecycleError } from '../errors.js';
import type { PodStatusCache } from '../pod-cache.js';
import type { PodStartupLatencyTracker } from '../pod-startup-latency.js';
import { POD_START_DURATION_BUCKETS, recordInitContainerTimes } from '../pod-startup-latency.js';
import type { PodSyncer, PodUpdateType } from '../pod-workers.js';
import type { ReasonCache } from '../reason-cache.js';
import type { PodCgroupsHook, VolumeProvider } from '../types.js';
import { podReference } from './events.js';
import { podKey } from './pod-manager.js';
import { makePodDataDirs } from './pod-dirs.js';
import type { StatusGenerator } from './pod-status.js';

export interface PodSyncerOptions {
  runtime: ContainerRuntime;
  statusManager: Pick<StatusManager, 'getPodStatus' | 'setPodStatus' | 'terminatePod'>;
  generate: StatusGenerator;
  cache: PodStatusCache;
  reasons: ReasonCache;
  backoff: Backoff;
  podCgroups: PodCgroupsHook | undefined;
  volumes: VolumeProvider | undefined;
  rootDir: string | undefined;
  /** A sync now for a pod that has a worker. */
  syncNow: (uid: string) => void;
  /** The pod's containers are all stopped (killPodNow waiters resolve). */
  podKilled: (uid: string) => void;
  /** No source has the pod any more (and every source has delivered): it will not be started again. */
  isPodDeleted: (uid: string) => boolean;
  clock: Clock;
  logger: Logger;
  recorder: EventRecorder;
  metrics: Metrics;
  /** Told of the init containers' runs at each sync (kubelet_pod_start_sli_duration_seconds leaves them out). */
  startupTracker: PodStartupLatencyTracker | undefined;
}

interface SetupFailure {
  code: 'POD_CGROUP_ERROR' | 'VOLUME_ERROR';
  /** The event's reason and message prefix (upstream's). */
  reason: string;
  event: string;
  /** The sync error's message, given the quoted pod key. */
  message: (pod: string) => string;
}

const CGROUP_FAILURE: SetupFailure = {
  code: 'POD_CGROUP_ERROR',
  reason: EventReason.FailedToCreatePodContainer,
  event: 'unable to ensure pod container exists',
  message: (pod) => `failed to ensure that the pod ${pod} cgroups exist and are correctly applied`,
};

const VOLUME_FAILURE: SetupFailure = {
  code: 'VOLUME_ERROR',
  reason: EventReason.FailedMountVolume,
  event: 'Unable to attach or mount volumes',
  message: (pod) => `unable to attach or mount volumes for pod ${pod}`,
};

/** Upstream Kubelet.SyncPod, SyncTerminatingPod, SyncTerminatingRuntimePod and SyncTerminatedPod: the work of a pod worker. */
export function createPodSyncer(o: PodSyncerOptions): PodSyncer {
  const { runtime, statusManager, generate, logger } = o;
  // Upstream kubelet_pod_worker_duration_seconds: how long one sync of a pod takes, by its update type.
  const workerDuration = o.metrics.histogram<'operation_type'>({
    name: 'kubelet_pod_worker_duration_seconds',
    help: 'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync',
    labelNames: ['operation_type'],
  });
  // Upstream kubelet_pod_start_duration_seconds: from the kubelet first seeing the pod to the sync that finds it running.
  const podStartDuration = o.metrics.histogram({
    name: 'kubelet_pod_start_duration_seconds',
    help: 'Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run',
    buckets: POD_START_DURATION_BUCKETS,
  });

  /** Runs a pod-level setup step; a failure is recorded on the pod and fails the sync with that reason. */
  const setup = async (pod: Pod, step: () => Promise<void>, failure: SetupFailure): Promise<void> => {
    try {
      await step();
    } catch (err) {
      o.recorder.event(podReference(pod), EventType.Warning, failure.reason, `${failure.event}: ${errorMessage(err)}`);
      throw new PodLifecycleError(failure.code, `${failure.message(JSON.stringify(podKey(pod)))}: ${errorMessage(err)}`, { cause: err });
    }
  };

  const syncPod = async (updateType: PodUpdateType, pod: Pod, runtimeStatus: RuntimePodStatus, signal: AbortSignal): Promise<boolean> => {
    const uid = pod.metadata.uid;
    logger.child({ pod: podKey(pod), podUID: uid }).debug('SyncPod enter', { updateType });
    if (o.startupTracker !== undefined) recordInitContainerTimes(o.startupTracker, pod, runtimeStatus);
    const apiStatus = generate(pod, runtimeStatus, false);
    const previousPhase = statusManager.getPodStatus(uid)?.phase;
    if (apiStatus.phase === 'Running' && (previousPhase === undefined || previousPhase === 'Pending')) {
      const firstSeen = Date.parse(pod.metadata.annotations?.[ConfigFirstSeenAnnotationKey] ?? '');
      if (!Number.isNaN(firstSeen)) podStartDuration.observe(Math.max(0, o.clock.now() - firstSeen) / 1000);
    }
    statusManager.setPodStatus(pod, apiStatus, { fromSync: true });
    if (apiStatus.phase === 'Succeeded' || apiStatus.phase === 'Failed') return true;

    // Upstream SyncPod: the pod cgroup exists with the pod's resources before anything of the pod runs.
    const { podCgroups, volumes } = o;
    if (podCgroups !== undefined) {
      await setup(pod, () => podCgroups.ensureExists(pod), CGROUP_FAILURE);
    }
    if (o.rootDir !== undefined) await makePodDataDirs(o.rootDir, uid);
    if (volumes !== undefined) {
      await setup(pod, () => volumes.waitForAttachAndMount(pod, signal), VOLUME_FAILURE);
    }
    const result = await runtime.syncPod(pod, runtimeStatus, o.backoff, signal);
    o.reasons.update(uid, result);
    if (result.results.some((r) => r.reason === undefined && (r.action === 'StartContainer' || r.action === 'InitContainer')))
      void refreshAfterStart(o, pod);
    // The failures of this sync show at once (upstream shows them one sync later).
    statusManager.setPodStatus(pod, generate(pod, runtimeStatus, false));
    if (result.error !== undefined) {
      throw new PodLifecycleError('SYNC_FAILED', `failed to sync pod ${JSON.stringify(podKey(pod))}: ${result.error.message}`, {
        cause: result.error,
        ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
      });
    }
    return false;
  };

  return {
    syncPod: (updateType, pod, runtimeStatus, signal) =>
      timed(o.clock, workerDuration, updateType, syncPod)(updateType, pod, runtimeStatus, signal),

    // Upstream Kubelet.SyncTerminatingPod.
    syncTerminatingPod: timed(o.clock, workerDuration, 'kill', async (pod, runtimeStatus, gracePeriodSeconds) => {
      const uid = pod.metadata.uid;
      statusManager.setPodStatus(pod, generate(pod, runtimeStatus, false));
      const result = await runtime.killPod(pod, toRunningPodWithAllContainers(runtimeStatus), gracePeriodSeconds);
      if (result.error !== undefined) {
        throw new PodLifecycleError('KILL_FAILED', `failed to kill pod ${JSON.stringify(podKey(pod))}: ${result.error.message}`, {
          cause: result.error,
        });
      }
      const readAt = o.clock.now();
      const after = await runtime.getPodStatus(uid, pod.metadata.name, pod.metadata.namespace);
      // Into the cache (unless the PLEG stored a newer read meanwhile): the relist then finds these
      // stopped containers already there and does not read the pod again (a mass deletion's relists).
      if (o.cache.get(uid).modifiedAt < readAt) o.cache.set(uid, after, undefined, readAt);
      const stillRunning = after.containers.filter((c) => c.state === 'running').map((c) => c.name);
      if (stillRunning.length > 0) {
        throw new PodLifecycleError('KILL_FAILED', `detected running containers after a successful KillPod: ${stillRunning.join(', ')}`);
      }
      statusManager.setPodStatus(pod, generate(pod, after, true));
      logger.info('Pod termination stopped all running containers', { pod: podKey(pod), podUID: uid, gracePeriod: gracePeriodSeconds });
      o.podKilled(uid);
      return after;
    }),

    async syncTerminatingRuntimePod(runningPod, gracePeriodSeconds) {
      logger.info('Killing orphaned pod found in the runtime', {
        pod: `${runningPod.namespace}/${runningPod.name}`,
        podUID: runningPod.uid,
      });
      const result = await runtime.killPod(undefined, runningPod, gracePeriodSeconds);
      if (result.error !== undefined) {
        throw new PodLifecycleError(
          'KILL_FAILED',
          `failed to kill orphaned pod ${JSON.stringify(runningPod.uid)}: ${result.error.message}`,
          { cause: result.error },
        );
      }
    },

    // Upstream Kubelet.SyncTerminatedPod.
    async syncTerminatedPod(pod, runtimeStatus) {
      statusManager.setPodStatus(pod, generate(pod, runtimeStatus, true));
      if (o.volumes !== undefined) await o.volumes.teardownPod(pod.metadata.uid);
      // Upstream SyncTerminatedPod: the pod cgroup goes once the containers are stopped.
      if (o.podCgroups !== undefined) {
        try {
          await o.podCgroups.destroy(pod.metadata.uid);
        } catch (err) {
          throw new PodLifecycleError(
            'POD_CGROUP_ERROR',
            `failed to remove the cgroup of pod ${JSON.stringify(podKey(pod))}: ${errorMessage(err)}`,
            { cause: err },
          );
        }
      }
      // Upstream SyncTerminatedPod ends with statusManager.TerminatePod: the final version, marked finished
      // (in API mode the sink may then delete the pod for good).
      statusManager.terminatePod(pod);
      logger.debug('Pod is terminated and will be forgotten once no source has it', { pod: podKey(pod), podUID: pod.metadata.uid });
      // A pod deleted for good: its exited containers and stopped sandbox go now, not at the next
      // container GC (upstream's podContainerDeletor does the containers early too); GC stays the
      // backstop. Awaited, so that housekeeping's GC pass for the forgotten worker finds nothing left.
      if (o.isPodDeleted(pod.metadata.uid)) {
        await runtime.removeDeletedPod(runtimeStatus).catch((err: unknown) =>
          logger.warn('Failed to remove the containers of a deleted pod', {
            pod: podKey(pod),
            podUID: pod.metadata.uid,
            err: errorMessage(err),
          }),
        );
      }
    },
  };
}

/**
 * After a sync started containers, reads the pod's status at once and syncs again with it, so the
 * pod shows Running (and Ready without a readiness probe) without waiting for the next relist
 * (up to 1 s; containerd 1.6 has no container events). Upstream waits for the relist. A status the
 * PLEG read later is never overwritten; a failed read is left to the PLEG.
 */
async function refreshAfterStart(o: PodSyncerOptions, pod: Pod): Promise<void> {
  const { uid, name, namespace = 'default' } = pod.metadata as { uid: string; name: string; namespace?: string };
  const readAt = o.clock.now();
  let status: RuntimePodStatus;
  try {
    status = await o.runtime.getPodStatus(uid, name, namespace);
  } catch (err) {
    o.logger.debug('Status refresh after start failed; the PLEG will read it', { pod: podKey(pod), podUID: uid, err: errorMessage(err) });
    return;
  }
  if (o.cache.get(uid).modifiedAt >= readAt) return;
  // Stamped after the read (the worker needs a status newer than its last sync, which ended meanwhile);
  // everything the sync did happened before readAt.
  o.cache.set(uid, status, undefined, Math.max(o.clock.now(), readAt + 1));
  o.syncNow(uid);
}

/** The function, observing how long each call took into the histogram under `operation`. */
function timed<A extends unknown[], R>(
  clock: Clock,
  histogram: Histogram<'operation_type'>,
  operation: string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    const start = clock.now();
    try {
      return await fn(...args);
    } finally {
      histogram.observe({ operation_type: operation }, (clock.now() - start) / 1000);
    }
  };
}
