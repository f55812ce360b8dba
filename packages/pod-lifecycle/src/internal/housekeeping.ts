import type { Pod } from '@kubelet-ts/api';
import { isStaticPod } from '@kubelet-ts/api';
import type { Backoff, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { ContainerRuntime, RunningPod } from '@kubelet-ts/container-runtime';
import type { StatusManager } from '@kubelet-ts/status-manager';
import type { PodWorkerState, PodWorkers } from '../pod-workers.js';
import type { ReasonCache } from '../reason-cache.js';
import type { EvictPodRequest, PodCgroupsHook, VolumeProvider } from '../types.js';
import type { Dispatcher } from './dispatch.js';
import { listPodDirs, removePodDir } from './pod-dirs.js';
import { podKey, staticLabel } from './pod-manager.js';
import type { PodManager } from './pod-manager.js';

/** Upstream: orphaned runtime pods are killed with a 1 s grace period. */
const ORPHAN_GRACE_SECONDS = 1;

export interface HousekeepingOptions {
  sourcesReady: () => boolean;
  pods: PodManager;
  podWorkers: PodWorkers;
  statusManager: Pick<StatusManager, 'deletePodStatus' | 'removeOrphanedStatuses'>;
  reasons: ReasonCache;
  stoppedByKubelet: Map<string, EvictPodRequest>;
  runtime: Pick<ContainerRuntime, 'getPods'>;
  podCgroups: PodCgroupsHook | undefined;
  volumes: VolumeProvider | undefined;
  rootDir: string | undefined;
  mountPoints: () => Promise<string[]>;
  backoff: Backoff;
  dispatch: Dispatcher['dispatch'];
  /** Upstream GetActivePods: what kubelet_active_pods counts. */
  getActivePods: () => Pod[];
  /** A container GC pass now. */
  garbageCollect: () => Promise<void>;
  /** The lifecycle forgot this pod. */
  podRemoved: (uid: string) => void;
  logger: Logger;
  metrics: Metrics;
}

/** Upstream HandlePodCleanups, as far as this kubelet has the pieces; one pass at a time. */
export interface Housekeeping {
  /** One pass now, or the one already running. */
  housekeeping(): Promise<void>;
  /** The pass running now, if any. */
  running(): Promise<void> | undefined;
}

export function createHousekeeping(o: HousekeepingOptions): Housekeeping {
  const { pods, podWorkers, logger } = o;
  const orphanedRuntimePods = o.metrics.counter({
    name: 'kubelet_orphaned_runtime_pods_total',
    help: 'Number of pods that have been detected in the container runtime without being already known to the pod worker.',
  });
  const restartedPods = o.metrics.counter<'static'>({
    name: 'kubelet_restarted_pods_total',
    help: 'Number of pods that have been restarted because they were deleted and recreated with the same UID while the kubelet was watching them',
    labelNames: ['static'],
  });
  const activePods = o.metrics.gauge<'static'>({
    name: 'kubelet_active_pods',
    help: 'The number of pods the kubelet considers active and which are being considered when admitting new pods. static is true if the pod is not from the apiserver.',
    labelNames: ['static'],
  });
  const workingPods = o.metrics.gauge<'lifecycle' | 'config' | 'static'>({
    name: 'kubelet_working_pods',
    help: 'Number of pods the kubelet is actually running, broken down by lifecycle phase, whether the pod is desired, orphaned, or runtime only (also orphaned), and whether the pod is static. An orphaned pod has been removed from local configuration or force deleted in the API and consumes resources that are not otherwise visible.',
    labelNames: ['lifecycle', 'config', 'static'],
  });
  // Upstream cleanupOrphanedPodDirs' counts of its last sweep.
  const orphanPodCleanedVolumes = o.metrics.gauge({
    name: 'kubelet_orphan_pod_cleaned_volumes',
    help: 'The total number of orphaned Pods whose volumes were cleaned in the last periodic sweep.',
  });
  const orphanPodCleanedVolumesErrors = o.metrics.gauge({
    name: 'kubelet_orphan_pod_cleaned_volumes_errors',
    help: 'The number of orphaned Pods whose volumes failed to be cleaned in the last periodic sweep.',
  });
  let current: Promise<void> | undefined;

  // Upstream HandlePodCleanups' counts, once the workers are synced and the orphans are being killed: every
  // combination upstream reports is set, zero included.
  const recordPodCounts = (): void => {
    const active = o.getActivePods();
    const staticActive = active.filter(isStaticPod).length;
    activePods.set({ static: '' }, active.length - staticActive);
    activePods.set({ static: 'true' }, staticActive);
    const counts = new Map<string, number>();
    for (const worker of podWorkers.workers()) {
      const key = workingPodsKey(WORKER_LIFECYCLE[worker.state], worker.pod, pods.hasPod(worker.uid));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    for (const labels of WORKING_PODS_SERIES) {
      workingPods.set(labels, counts.get(`${labels.lifecycle}/${labels.config}/${labels.static}`) ?? 0);
    }
  };

  const forget = (uid: string): void => {
    o.reasons.removePod(uid);
    o.stoppedByKubelet.delete(uid);
  };

  // Finished workers no source has are forgotten; a UID re-added after its termination starts anew.
  const syncWorkers = (): void => {
    const before = new Set(podWorkers.workers().map((w) => w.uid));
    const known = podWorkers.syncKnownPods(pods.getPods());
    // Pods just forgotten (stopped, no source has them): collect their dead containers and
    // sandboxes now rather than at the next GC period (upstream removes them on ContainerDied).
    if ([...before].some((uid) => !known.has(uid) && !pods.hasPod(uid))) void o.garbageCollect();
    for (const [uid, state] of known) {
      if (state !== 'terminatedAndRecreated') continue;
      const pod = pods.getPodByUID(uid);
      if (pod === undefined) continue;
      logger.info('Pod was terminated and is now recreated with the same UID: starting it', { pod: podKey(pod), podUID: uid });
      restartedPods.inc({ static: staticLabel(pod) });
      o.statusManager.deletePodStatus(uid);
      forget(uid);
      o.dispatch(pod, 'create');
    }
    for (const worker of podWorkers.workers()) {
      if (worker.state === 'syncing' && !pods.hasPod(worker.uid) && worker.pod !== undefined) o.dispatch(worker.pod, 'kill');
    }
  };

  // Runtime pods that no worker has and no source wants are killed.
  const killOrphans = async (): Promise<RunningPod[]> => {
    let running: RunningPod[] = [];
    try {
      running = await o.runtime.getPods(false);
    } catch (err) {
      logger.error('Error listing containers', { err: errorMessage(err) });
    }
    for (const rp of running) {
      const state = podWorkers.state(rp.uid);
      if (state === 'syncing' || state === 'terminating') continue;
      if (state === undefined && pods.hasPod(rp.uid)) continue;
      orphanedRuntimePods.inc();
      podWorkers.updatePod({ updateType: 'kill', runningPod: rp, gracePeriodOverrideSeconds: ORPHAN_GRACE_SECONDS });
    }
    return running;
  };

  /** Whether what a pod left on the node (cgroup, pod dir) may go. */
  const removable = (uid: string, stillRunning: ReadonlySet<string>): boolean =>
    !pods.hasPod(uid) && !stillRunning.has(uid) && podWorkers.shouldPodContentBeRemoved(uid);

  const pass = async (): Promise<void> => {
    if (!o.sourcesReady()) return;
    syncWorkers();
    const running = await killOrphans();
    recordPodCounts();
    for (const uid of o.statusManager.removeOrphanedStatuses((uid) => pods.hasPod(uid) || podWorkers.isPodKnown(uid))) {
      forget(uid);
      o.podRemoved(uid);
    }
    const stillRunning = new Set(running.map((p) => p.uid));
    // The desired set is read again here: a pod added while the runtime was listed may already have its cgroup.
    const isRemovable = (uid: string): boolean => removable(uid, stillRunning);
    if (o.podCgroups !== undefined) await cleanupPodCgroups(o, o.podCgroups, pods.getPods(), isRemovable);
    if (o.rootDir !== undefined) {
      const cleaned = await cleanupPodDirs(o, o.rootDir, isRemovable);
      if (cleaned !== undefined) {
        orphanPodCleanedVolumes.set(cleaned.total);
        orphanPodCleanedVolumesErrors.set(cleaned.failed);
      }
    }
    o.backoff.gc();
  };

  return {
    housekeeping() {
      current ??= pass()
        .catch((err: unknown) => logger.error('Failed cleaning pods', { err: errorMessage(err) }))
        .finally(() => {
          current = undefined;
        });
      return current;
    },
    running: () => current,
  };
}

/** Upstream PodWorkerState.String(). */
const WORKER_LIFECYCLE: Record<PodWorkerState, string> = { syncing: 'sync', terminating: 'terminating', terminated: 'terminated' };

/** kubelet_working_pods' labels of one worker (upstream PodWorkerSync): desired, orphan, or runtime_only without a spec. */
function workingPodsKey(lifecycle: string, pod: Pod | undefined, desired: boolean): string {
  if (pod === undefined) return `${lifecycle}/runtime_only/unknown`;
  return `${lifecycle}/${desired ? 'desired' : 'orphan'}/${staticLabel(pod)}`;
}

/** The series upstream sets at each pass: every valid PodWorkerSync in every state. */
const WORKING_PODS_SERIES: ReadonlyArray<Record<'lifecycle' | 'config' | 'static', string>> = Object.values(WORKER_LIFECYCLE).flatMap(
  (lifecycle) => [
    { lifecycle, config: 'desired', static: 'true' },
    { lifecycle, config: 'desired', static: '' },
    { lifecycle, config: 'orphan', static: 'true' },
    { lifecycle, config: 'orphan', static: '' },
    { lifecycle, config: 'runtime_only', static: 'unknown' },
  ],
);

// Upstream cleanupOrphanedPodCgroups: the QoS tiers follow the active pods; cgroups of pods that are gone are removed.
async function cleanupPodCgroups(
  o: HousekeepingOptions,
  hook: PodCgroupsHook,
  desiredPods: Pod[],
  removable: (uid: string) => boolean,
): Promise<void> {
  const { logger } = o;
  const active = desiredPods.filter((p) => {
    const state = o.podWorkers.state(p.metadata.uid);
    return state === undefined || state === 'syncing' || state === 'terminating';
  });
  try {
    await hook.update?.(active);
  } catch (err) {
    logger.error('Failed to update the QoS cgroups', { err: errorMessage(err) });
  }
  if (hook.listPodUIDs === undefined) return;
  let uids: string[] = [];
  try {
    uids = await hook.listPodUIDs();
  } catch (err) {
    logger.error('Failed to list pod cgroups', { err: errorMessage(err) });
  }
  for (const uid of uids) {
    if (!removable(uid)) continue;
    try {
      await hook.destroy(uid);
      logger.info('Removed orphaned pod cgroup', { podUID: uid });
    } catch (err) {
      logger.error('Failed to remove orphaned pod cgroup', { podUID: uid, err: errorMessage(err) });
    }
  }
}

// Upstream cleanupOrphanedPodDirs: the directories (and volumes) of pods that are gone. Returns how many it
// tried and how many failed (undefined when the pod directories could not be listed: upstream then sets no count).
async function cleanupPodDirs(
  o: HousekeepingOptions,
  rootDir: string,
  removable: (uid: string) => boolean,
): Promise<{ total: number; failed: number } | undefined> {
  const { logger } = o;
  let dirs: string[];
  try {
    dirs = await listPodDirs(rootDir);
  } catch (err) {
    logger.error('Failed to list pod directories', { err: errorMessage(err) });
    return undefined;
  }
  let total = 0;
  let failed = 0;
  for (const uid of dirs) {
    if (!removable(uid)) continue;
    total++;
    try {
      if (o.volumes !== undefined) await o.volumes.teardownPod(uid);
      await removePodDir(rootDir, uid, o.mountPoints);
      logger.info('Removed orphaned pod directory', { podUID: uid });
    } catch (err) {
      failed++;
      logger.error('Failed to clean up orphaned pod directory', { podUID: uid, err: errorMessage(err) });
    }
  }
  return { total, failed };
}
