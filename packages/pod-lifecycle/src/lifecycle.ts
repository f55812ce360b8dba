import type { Pod, PodStatus } from '@kubelet-ts/api';
import { getPodQOSClass } from '@kubelet-ts/api';
import type { Backoff, Clock, Logger, TimerHandle } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { ContainerGCPolicy, ContainerRuntime, RunningPod, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { toRunningPodWithAllContainers } from '@kubelet-ts/container-runtime';
import { PodLifecycleError } from './errors.js';
import type { HealthChecker, HealthCheckResult } from './health.js';
import { toHealthChecker } from './health.js';
import { listPodDirs, makePodDataDirs, readMountPoints, removePodDir } from './internal/pod-dirs.js';
import { createWorkQueue } from './internal/work-queue.js';
import { createPodStatusCache } from './pod-cache.js';
import type { PodStatusCache } from './pod-cache.js';
import { createPodWorkers } from './pod-workers.js';
import type { PodSyncer, PodUpdateType, PodWorkers } from './pod-workers.js';
import { createGenericPleg } from './pleg.js';
import type { PodLifecycleEvent, PodLifecycleEventGenerator } from './pleg.js';
import { createReasonCache } from './reason-cache.js';
import type { ReasonCache } from './reason-cache.js';
import { DEADLINE_EXCEEDED, generatePodStatus, pastActiveDeadline } from './status/generate.js';
import type { ReadinessProvider, StartupProvider } from './status/generate.js';
import type { EvictPodRequest, PodAdmitHandler, PodCgroupsHook, PodUpdate, VolumeProvider } from './types.js';

/** Upstream defaults: MaxPerPodContainer 1, MaxContainers -1, MinAge 0. */
export const DEFAULT_GC_POLICY: ContainerGCPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

export interface PodLifecycleDeps {
  runtime: ContainerRuntime;
  clock?: Clock;
  logger?: Logger;
  nodeName: string;
  /** The node's IPs, primary first (hostIP/hostIPs, and pod IPs of host-network pods). */
  getNodeIPs: () => string[];
  /** A pod is re-synced this long (plus up to 50 % jitter) after its last successful sync. Default 60 s. */
  syncFrequencyMs?: number;
  /** Default 2 s. */
  housekeepingIntervalMs?: number;
  /** Default 1 s. */
  plegRelistPeriodMs?: number;
  /** Default 3 min. */
  plegRelistThresholdMs?: number;
  /** Default 1 min. */
  containerGCPeriodMs?: number;
  gcPolicy?: ContainerGCPolicy;
  readiness?: ReadinessProvider;
  startup?: StartupProvider;
  volumes?: VolumeProvider;
  /** `<rootDir>/pods/<uid>` is made before a pod starts and removed once the pod is gone. Omit to leave pod dirs alone. */
  rootDir?: string;
  /** Container ID prefix in statuses (`containerd://…`). Default "containerd". */
  runtimeName?: string;
  /** Jitter source (tests). Default Math.random. */
  random?: () => number;
  /** Crash-loop back-off; default 10 s doubling to 300 s, reset after 10 min clean. */
  crashLoopBackoff?: Backoff;
  /** Mount points of the node, to refuse removing a pod dir with something mounted (default: /proc/self/mountinfo). */
  mountPoints?: () => Promise<string[]>;
  /** A PLEG other than the generic (polling) one, e.g. event-driven once the runtime supports it. */
  pleg?: PodLifecycleEventGenerator;
  /** Pod cgroups: made before the runtime syncs a pod, removed after it terminated. Omit to leave cgroups to the runtime. */
  podCgroups?: PodCgroupsHook;
  /** Admission (upstream admitHandlers), consulted in order before a new pod starts; more with `addPodAdmitHandler`. */
  admitHandlers?: readonly PodAdmitHandler[];
}

/** A change of a pod's generated status (for a future API status sync). */
export type PodStatusListener = (pod: Pod, status: PodStatus) => void;

/**
 * Upstream Kubelet.syncLoop and its handlers: takes pod updates from the sources, drives one
 * pod worker per pod, polls the runtime (PLEG), resyncs, does housekeeping and container GC,
 * and keeps the generated status of every pod.
 */
export interface PodLifecycle {
  handlePodUpdate(update: PodUpdate): void;
  /** Every source has delivered its first complete set: orphans may now be killed and pod dirs cleaned. */
  setSourcesReady(): void;
  readonly sourcesReady: boolean;
  /** Runs the loops until the signal aborts; resolves once they stopped. */
  run(signal: AbortSignal): Promise<void>;
  /** The desired pods with their current status (what `/pods` serves). */
  getPods(): Pod[];
  getPodStatus(uid: string): PodStatus | undefined;
  /**
   * Calls the listener with a pod's status whenever it changes. With `everySync`, also after every pod
   * sync whose status did not change: upstream hands each status a sync generates to the probe manager,
   * which re-runs the readiness probe of a running container that is not ready yet (a first probe that
   * came before the process listened is retried at the next sync, not a period later).
   */
  onStatusChange(listener: PodStatusListener, options?: { everySync?: boolean }): () => void;
  /**
   * Called with a pod's UID once the lifecycle forgot it (stopped, and no source has it): per-pod
   * state kept elsewhere (probe workers) can go. No status change follows for that UID unless a
   * source adds it again.
   */
  onPodRemoved(listener: (uid: string) => void): () => void;
  /**
   * A probe result of the pod changed: its status shows the new readiness at once (upstream
   * SetContainerReadiness, from the last runtime status read), and the pod syncs (upstream handleProbeSync).
   */
  requestSync(uid: string): void;
  /** Adds an admission handler (upstream AddPodAdmitHandler); returns its removal. */
  addPodAdmitHandler(handler: PodAdmitHandler): () => void;
  /**
   * Upstream killPodNow for eviction: stops the pod with the grace period and keeps its status
   * Failed with the request's reason, message and condition; it is not started again while a
   * source still lists it. Resolves once its containers are stopped (rejects with `KillFailed`
   * after grace + 10 s, or for a pod the lifecycle does not know).
   */
  evictPod(uid: string, request: EvictPodRequest): Promise<void>;
  /** Upstream GetActivePods: desired pods that may still run (not terminated, not already stopped by the kubelet). */
  getActivePods(): Pod[];
  /** Upstream podResourcesAreReclaimed: the pod's worker finished (containers stopped, volumes and cgroup released). */
  podResourcesAreReclaimed(uid: string): boolean;
  /** One housekeeping pass now (what `run` does every housekeeping interval). */
  housekeeping(): Promise<void>;
  /** `pleg` and `syncloop`. */
  readonly healthCheckers: readonly HealthChecker[];
  readonly pleg: PodLifecycleEventGenerator;
  readonly podWorkers: PodWorkers;
  readonly cache: PodStatusCache;
}

const SYNC_TICK_MS = 1_000;
/** Upstream: orphaned runtime pods are killed with a 1 s grace period. */
const ORPHAN_GRACE_SECONDS = 1;
/** Upstream killPodNow waits the grace period plus this much before giving up. */
const KILL_WAIT_MARGIN_MS = 10_000;
/** Upstream rejectPod: the admission message is prefixed. */
const REJECTED_MESSAGE_PREFIX = 'Pod was rejected: ';

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function sameStatus(a: PodStatus | undefined, b: PodStatus): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

export function createPodLifecycle(deps: PodLifecycleDeps): PodLifecycle {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? noopLogger;
  const runtime = deps.runtime;
  const syncFrequencyMs = deps.syncFrequencyMs ?? 60_000;
  const housekeepingIntervalMs = deps.housekeepingIntervalMs ?? 2_000;
  const containerGCPeriodMs = deps.containerGCPeriodMs ?? 60_000;
  const gcPolicy = deps.gcPolicy ?? DEFAULT_GC_POLICY;
  const runtimeName = deps.runtimeName ?? 'containerd';
  const mountPoints = deps.mountPoints ?? ((): Promise<string[]> => readMountPoints());
  const backoff = deps.crashLoopBackoff ?? createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });

  const cache = createPodStatusCache();
  const reasons: ReasonCache = createReasonCache();
  const workQueue = createWorkQueue(clock);
  /** Upstream pod manager: the desired pods by UID. */
  const desired = new Map<string, Pod>();
  /** Upstream status manager: the latest generated status by UID. */
  const statuses = new Map<string, PodStatus>();
  const listeners = new Map<PodStatusListener, { everySync: boolean }>();
  const removedListeners = new Set<(uid: string) => void>();
  const admitHandlers: PodAdmitHandler[] = [...(deps.admitHandlers ?? [])];
  /** Pods the kubelet stopped itself (evicted or refused at admission): their terminal status, kept while known. */
  const stoppedByKubelet = new Map<string, EvictPodRequest>();
  /** evictPod callers waiting for a pod's containers to stop. */
  const killWaiters = new Map<string, Array<() => void>>();
  let sourcesReady = false;
  let loopEntryTime: number | undefined;
  let housekeepingRunning: Promise<void> | undefined;
  let gcRunning = false;
  let gcRequestedAgain = false;
  let started = false;

  const pleg =
    deps.pleg ??
    createGenericPleg({
      runtime,
      cache,
      clock,
      logger: logger.child({ component: 'pleg' }),
      ...(deps.plegRelistPeriodMs !== undefined ? { relistPeriodMs: deps.plegRelistPeriodMs } : {}),
      ...(deps.plegRelistThresholdMs !== undefined ? { relistThresholdMs: deps.plegRelistThresholdMs } : {}),
    });

  const setStatus = (pod: Pod, status: PodStatus, fromSync = false): void => {
    const uid = pod.metadata.uid;
    const changed = !sameStatus(statuses.get(uid), status);
    if (changed) statuses.set(uid, status);
    else if (!fromSync) return;
    for (const [listener, { everySync }] of listeners) {
      if (!changed && !everySync) continue;
      try {
        listener(pod, status);
      } catch (err) {
        logger.error('Pod status listener failed', { pod: podKey(pod), podUID: uid, err: errorMessage(err) });
      }
    }
  };

  const generate = (pod: Pod, runtimeStatus: RuntimePodStatus, podIsTerminal: boolean): PodStatus => {
    const uid = pod.metadata.uid;
    const previous = statuses.get(uid);
    const now = clock.now();
    const deadlinePassed = pastActiveDeadline(pod, previous?.startTime ?? pod.status?.startTime, now);
    const stopped = stoppedByKubelet.get(uid);
    const evict = stopped !== undefined ? { reason: stopped.reason, message: stopped.message, ...(stopped.condition !== undefined ? { condition: { ...stopped.condition } } : {}) } : deadlinePassed ? DEADLINE_EXCEEDED : undefined;
    return generatePodStatus({
      ...(evict !== undefined ? { evict } : {}),
      pod,
      runtimeStatus,
      ...(previous !== undefined ? { previous } : {}),
      reasons: (name) => reasons.get(uid, name),
      ...(deps.readiness !== undefined ? { readiness: deps.readiness } : {}),
      ...(deps.startup !== undefined ? { startup: deps.startup } : {}),
      nodeIPs: deps.getNodeIPs(),
      runtimeName,
      podIsTerminal,
      now,
    });
  };

  const syncer: PodSyncer = {
    // Upstream Kubelet.SyncPod.
    async syncPod(updateType: PodUpdateType, pod, runtimeStatus, signal) {
      const uid = pod.metadata.uid;
      const log = logger.child({ pod: podKey(pod), podUID: uid });
      log.debug('SyncPod enter', { updateType });
      const apiStatus = generate(pod, runtimeStatus, false);
      setStatus(pod, apiStatus, true);
      if (apiStatus.phase === 'Succeeded' || apiStatus.phase === 'Failed') return true;

      // Upstream SyncPod: the pod cgroup exists with the pod's resources before anything of the pod runs.
      if (deps.podCgroups !== undefined) {
        try {
          await deps.podCgroups.ensureExists(pod);
        } catch (err) {
          throw new PodLifecycleError('PodCgroupError', `failed to ensure that the pod ${JSON.stringify(podKey(pod))} cgroups exist and are correctly applied: ${errorMessage(err)}`, { cause: err });
        }
      }
      if (deps.rootDir !== undefined) await makePodDataDirs(deps.rootDir, uid);
      if (deps.volumes !== undefined) {
        try {
          await deps.volumes.waitForAttachAndMount(pod, signal);
        } catch (err) {
          throw new PodLifecycleError('VolumeError', `unable to attach or mount volumes for pod ${JSON.stringify(podKey(pod))}: ${errorMessage(err)}`, { cause: err });
        }
      }
      const result = await runtime.syncPod(pod, runtimeStatus, backoff, signal);
      reasons.update(uid, result);
      if (result.results.some((r) => r.reason === undefined && (r.action === 'StartContainer' || r.action === 'InitContainer'))) void refreshAfterStart(pod);
      // The failures of this sync show at once (upstream shows them one sync later).
      setStatus(pod, generate(pod, runtimeStatus, false));
      if (result.error !== undefined) {
        throw new PodLifecycleError('SyncFailed', `failed to sync pod ${JSON.stringify(podKey(pod))}: ${result.error.message}`, {
          cause: result.error,
          ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}),
        });
      }
      return false;
    },

    // Upstream Kubelet.SyncTerminatingPod.
    async syncTerminatingPod(pod, runtimeStatus, gracePeriodSeconds) {
      const uid = pod.metadata.uid;
      setStatus(pod, generate(pod, runtimeStatus, false));
      const result = await runtime.killPod(pod, toRunningPodWithAllContainers(runtimeStatus), gracePeriodSeconds);
      if (result.error !== undefined) {
        throw new PodLifecycleError('KillFailed', `failed to kill pod ${JSON.stringify(podKey(pod))}: ${result.error.message}`, { cause: result.error });
      }
      const after = await runtime.getPodStatus(uid, pod.metadata.name, pod.metadata.namespace);
      const stillRunning = after.containers.filter((c) => c.state === 'running').map((c) => c.name);
      if (stillRunning.length > 0) {
        throw new PodLifecycleError('KillFailed', `detected running containers after a successful KillPod: ${stillRunning.join(', ')}`);
      }
      setStatus(pod, generate(pod, after, true));
      logger.info('Pod termination stopped all running containers', { pod: podKey(pod), podUID: uid, gracePeriod: gracePeriodSeconds });
      const waiters = killWaiters.get(uid) ?? [];
      killWaiters.delete(uid);
      for (const resolve of waiters) resolve();
    },

    async syncTerminatingRuntimePod(runningPod, gracePeriodSeconds) {
      logger.info('Killing orphaned pod found in the runtime', { pod: `${runningPod.namespace}/${runningPod.name}`, podUID: runningPod.uid });
      const result = await runtime.killPod(undefined, runningPod, gracePeriodSeconds);
      if (result.error !== undefined) {
        throw new PodLifecycleError('KillFailed', `failed to kill orphaned pod ${JSON.stringify(runningPod.uid)}: ${result.error.message}`, { cause: result.error });
      }
    },

    // Upstream Kubelet.SyncTerminatedPod.
    async syncTerminatedPod(pod, runtimeStatus) {
      setStatus(pod, generate(pod, runtimeStatus, true));
      if (deps.volumes !== undefined) await deps.volumes.teardownPod(pod.metadata.uid);
      // Upstream SyncTerminatedPod: the pod cgroup goes once the containers are stopped.
      if (deps.podCgroups !== undefined) {
        try {
          await deps.podCgroups.destroy(pod.metadata.uid);
        } catch (err) {
          throw new PodLifecycleError('PodCgroupError', `failed to remove the cgroup of pod ${JSON.stringify(podKey(pod))}: ${errorMessage(err)}`, { cause: err });
        }
      }
      logger.debug('Pod is terminated and will be forgotten once no source has it', { pod: podKey(pod), podUID: pod.metadata.uid });
    },
  };

  const podWorkers = createPodWorkers({
    syncer,
    cache,
    clock,
    logger,
    requeue: (uid, delayMs) => workQueue.enqueue(uid, delayMs),
    resyncIntervalMs: syncFrequencyMs,
    ...(deps.random !== undefined ? { random: deps.random } : {}),
  });

  const dispatch = (pod: Pod, updateType: PodUpdateType, gracePeriodOverrideSeconds?: number): void => {
    podWorkers.updatePod({ updateType, pod, ...(gracePeriodOverrideSeconds !== undefined ? { gracePeriodOverrideSeconds } : {}) });
  };

  /** A sync now for a pod that has a worker (a probe result changed, fresh status after a start). */
  const syncNow = (uid: string): void => {
    if (!podWorkers.isPodKnown(uid)) return;
    const pod = desired.get(uid);
    if (pod !== undefined) dispatch(pod, 'sync');
    else podWorkers.resync(uid);
  };

  /**
   * After a sync started containers, reads the pod's status at once and syncs again with it, so the
   * pod shows Running (and Ready without a readiness probe) without waiting for the next relist
   * (up to 1 s; containerd 1.6 has no container events). Upstream waits for the relist. A status the
   * PLEG read later is never overwritten; a failed read is left to the PLEG.
   */
  const refreshAfterStart = async (pod: Pod): Promise<void> => {
    const { uid, name, namespace = 'default' } = pod.metadata as { uid: string; name: string; namespace?: string };
    const readAt = clock.now();
    let status: RuntimePodStatus;
    try {
      status = await runtime.getPodStatus(uid, name, namespace);
    } catch (err) {
      logger.debug('Status refresh after start failed; the PLEG will read it', { pod: podKey(pod), podUID: uid, err: errorMessage(err) });
      return;
    }
    if (cache.get(uid).modifiedAt >= readAt) return;
    // Stamped after the read (the worker needs a status newer than its last sync, which ended meanwhile);
    // everything the sync did happened before readAt.
    cache.set(uid, status, undefined, Math.max(clock.now(), readAt + 1));
    syncNow(uid);
  };

  const byCreation = (pods: Pod[]): Pod[] =>
    [...pods].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''));

  const handlePodUpdate = (update: PodUpdate): void => {
    logger.info(`SyncLoop ${update.op}`, { source: update.source, pods: update.pods.map(podKey) });
    switch (update.op) {
      case 'ADD':
        for (const pod of byCreation(update.pods)) {
          desired.set(pod.metadata.uid, pod);
          if (!admit(pod)) continue;
          dispatch(pod, 'create');
        }
        break;
      case 'UPDATE':
        for (const pod of update.pods) {
          desired.set(pod.metadata.uid, pod);
          dispatch(pod, 'update');
        }
        break;
      case 'DELETE':
        // Graceful deletion: the pod stays known until REMOVE, but stops now with its (deletion) grace period.
        for (const pod of update.pods) {
          desired.set(pod.metadata.uid, pod);
          dispatch(pod, 'kill');
        }
        break;
      case 'REMOVE':
        // The source no longer has it (for a static pod: its manifest is gone): stop it; GC removes its containers.
        for (const pod of update.pods) {
          desired.delete(pod.metadata.uid);
          dispatch(pod, 'kill');
        }
        break;
      case 'RECONCILE':
        // Only the status changed at the source: remember the pod, nothing to run.
        for (const pod of update.pods) if (desired.has(pod.metadata.uid)) desired.set(pod.metadata.uid, pod);
        break;
    }
  };

  const isTerminalStatus = (uid: string): boolean => {
    const phase = statuses.get(uid)?.phase;
    return phase === 'Succeeded' || phase === 'Failed';
  };

  // Upstream GetActivePods / filterOutInactivePods.
  const getActivePods = (): Pod[] =>
    [...desired.values()].filter((pod) => {
      const uid = pod.metadata.uid;
      if (stoppedByKubelet.has(uid)) return false;
      if (podWorkers.state(uid) === 'terminated') return false;
      return !(isTerminalStatus(uid) && !podWorkers.isPodTerminationRequested(uid));
    });

  /**
   * Upstream HandlePodAdditions → canAdmitPod / rejectPod, for pods not started yet. A refused pod
   * is stopped at once (nothing of it may run) and keeps phase Failed with the handler's reason.
   */
  const admit = (pod: Pod): boolean => {
    const uid = pod.metadata.uid;
    if (admitHandlers.length === 0 || podWorkers.isPodKnown(uid) || stoppedByKubelet.has(uid)) return true;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return true;
    const otherPods = getActivePods().filter((p) => p.metadata.uid !== uid);
    for (const handler of admitHandlers) {
      let result;
      try {
        result = handler.admit({ pod, otherPods });
      } catch (err) {
        logger.error('Pod admit handler failed; admitting', { pod: podKey(pod), podUID: uid, err: errorMessage(err) });
        continue;
      }
      if (result.admit) continue;
      const reason = result.reason ?? 'UnexpectedAdmissionError';
      const message = REJECTED_MESSAGE_PREFIX + (result.message ?? '');
      logger.warn('Pod admission refused', { pod: podKey(pod), podUID: uid, reason, message });
      stoppedByKubelet.set(uid, { gracePeriodSeconds: 0, reason, message });
      setStatus(pod, { phase: 'Failed', reason, message, qosClass: pod.status?.qosClass ?? getPodQOSClass(pod) });
      // Through the worker, so that a pod adopted from the runtime (kubelet restart) is stopped too.
      dispatch(pod, 'kill', 0);
      return false;
    }
    return true;
  };

  const evictPod = (uid: string, request: EvictPodRequest): Promise<void> => {
    const pod = desired.get(uid) ?? podWorkers.workers().find((w) => w.uid === uid)?.pod;
    if (pod === undefined) return Promise.reject(new PodLifecycleError('KillFailed', `cannot evict pod ${JSON.stringify(uid)}: not known`));
    stoppedByKubelet.set(uid, request);
    const state = podWorkers.state(uid);
    if (state === 'terminated') {
      setStatus(pod, generate(pod, cache.get(uid).status, true));
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const timer = clock.setTimeout(() => {
        const list = killWaiters.get(uid) ?? [];
        killWaiters.set(uid, list.filter((w) => w !== done));
        reject(new PodLifecycleError('KillFailed', `timeout waiting to kill pod ${JSON.stringify(podKey(pod))}`));
      }, Math.max(0, request.gracePeriodSeconds) * 1000 + KILL_WAIT_MARGIN_MS);
      const done = (): void => {
        clock.clearTimeout(timer);
        resolve();
      };
      killWaiters.set(uid, [...(killWaiters.get(uid) ?? []), done]);
      dispatch(pod, 'kill', request.gracePeriodSeconds);
    });
  };

  const onPlegEvent = (event: PodLifecycleEvent): void => {
    // Upstream isSyncPodWorthy: everything but a removal.
    if (event.type === 'ContainerRemoved') return;
    const pod = desired.get(event.id);
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
    const due = new Set(workQueue.getWork());
    // Upstream getPodsToSync: also every running pod past its activeDeadlineSeconds.
    for (const [uid, pod] of desired) {
      if (podWorkers.state(uid) === 'syncing' && pastActiveDeadline(pod, statuses.get(uid)?.startTime, now)) due.add(uid);
    }
    for (const uid of due) {
      const pod = desired.get(uid);
      if (pod !== undefined) dispatch(pod, 'sync');
      else podWorkers.resync(uid);
    }
  };

  const isPodDeleted = (uid: string): boolean => !desired.has(uid) && podWorkers.shouldPodContentBeRemoved(uid);

  // Upstream HandlePodCleanups, as far as this kubelet has the pieces.
  const doHousekeeping = async (): Promise<void> => {
    if (!sourcesReady) return;
    const desiredPods = [...desired.values()];
    const before = new Set(podWorkers.workers().map((w) => w.uid));
    const known = podWorkers.syncKnownPods(desiredPods);
    // Pods just forgotten (stopped, no source has them): collect their dead containers and
    // sandboxes now rather than at the next GC period (upstream removes them on ContainerDied).
    if ([...before].some((uid) => !known.has(uid) && !desired.has(uid))) void garbageCollect();
    for (const [uid, state] of known) {
      if (state !== 'terminatedAndRecreated') continue;
      const pod = desired.get(uid);
      if (pod === undefined) continue;
      logger.info('Pod was terminated and is now recreated with the same UID: starting it', { pod: podKey(pod), podUID: uid });
      statuses.delete(uid);
      reasons.removePod(uid);
      stoppedByKubelet.delete(uid);
      dispatch(pod, 'create');
    }
    for (const worker of podWorkers.workers()) {
      if (worker.state === 'syncing' && !desired.has(worker.uid) && worker.pod !== undefined) dispatch(worker.pod, 'kill');
    }

    let running: RunningPod[] = [];
    try {
      running = await runtime.getPods(false);
    } catch (err) {
      logger.error('Error listing containers', { err: errorMessage(err) });
    }
    for (const rp of running) {
      const state = podWorkers.state(rp.uid);
      if (state === 'syncing' || state === 'terminating') continue;
      if (state === undefined && desired.has(rp.uid)) continue;
      podWorkers.updatePod({ updateType: 'kill', runningPod: rp, gracePeriodOverrideSeconds: ORPHAN_GRACE_SECONDS });
    }

    for (const uid of [...statuses.keys()]) {
      if (desired.has(uid) || podWorkers.isPodKnown(uid)) continue;
      statuses.delete(uid);
      reasons.removePod(uid);
      stoppedByKubelet.delete(uid);
      for (const listener of removedListeners) {
        try {
          listener(uid);
        } catch (err) {
          logger.error('Pod removal listener failed', { podUID: uid, err: errorMessage(err) });
        }
      }
    }

    // The desired set is read again here: a pod added while the runtime was listed may already have its cgroup.
    if (deps.podCgroups !== undefined) await cleanupPodCgroups(deps.podCgroups, [...desired.values()], running);

    if (deps.rootDir !== undefined) {
      let dirs: string[] = [];
      try {
        dirs = await listPodDirs(deps.rootDir);
      } catch (err) {
        logger.error('Failed to list pod directories', { err: errorMessage(err) });
      }
      const stillRunning = new Set(running.map((p) => p.uid));
      for (const uid of dirs) {
        if (desired.has(uid) || stillRunning.has(uid) || !podWorkers.shouldPodContentBeRemoved(uid)) continue;
        try {
          if (deps.volumes !== undefined) await deps.volumes.teardownPod(uid);
          await removePodDir(deps.rootDir, uid, mountPoints);
          logger.info('Removed orphaned pod directory', { podUID: uid });
        } catch (err) {
          logger.error('Failed to clean up orphaned pod directory', { podUID: uid, err: errorMessage(err) });
        }
      }
    }
    backoff.gc();
  };

  // Upstream cleanupOrphanedPodCgroups: cgroups of pods no source has, that the runtime no longer runs and whose worker finished.
  const cleanupPodCgroups = async (hook: PodCgroupsHook, desiredPods: Pod[], running: RunningPod[]): Promise<void> => {
    const active = desiredPods.filter((p) => {
      const state = podWorkers.state(p.metadata.uid);
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
    const stillRunning = new Set(running.map((p) => p.uid));
    for (const uid of uids) {
      if (desired.has(uid) || stillRunning.has(uid) || !podWorkers.shouldPodContentBeRemoved(uid)) continue;
      try {
        await hook.destroy(uid);
        logger.info('Removed orphaned pod cgroup', { podUID: uid });
      } catch (err) {
        logger.error('Failed to remove orphaned pod cgroup', { podUID: uid, err: errorMessage(err) });
      }
    }
  };

  const housekeeping = (): Promise<void> => {
    if (housekeepingRunning === undefined) {
      housekeepingRunning = doHousekeeping()
        .catch((err: unknown) => logger.error('Failed cleaning pods', { err: errorMessage(err) }))
        .finally(() => {
          housekeepingRunning = undefined;
        });
    }
    return housekeepingRunning;
  };

  const garbageCollect = async (): Promise<void> => {
    // A pass asked for while one runs is not dropped: pods forgotten meanwhile would otherwise keep
    // their sandboxes until the next GC period (seen when 110 pods were deleted at once).
    if (gcRunning) {
      gcRequestedAgain = true;
      return;
    }
    gcRunning = true;
    try {
      do {
        gcRequestedAgain = false;
        try {
          await runtime.garbageCollect(gcPolicy, sourcesReady, isPodDeleted);
        } catch (err) {
          logger.error('Container garbage collection failed', { err: errorMessage(err) });
        }
      } while (gcRequestedAgain);
    } finally {
      gcRunning = false;
    }
  };

  // Upstream syncLoopHealthCheck: max(2 × resync interval, 5 min) since the loop was last entered.
  const syncLoopMaxWaitMs = Math.max(2 * syncFrequencyMs, 5 * 60_000);
  const syncLoopHealthy = (): HealthCheckResult => {
    if (loopEntryTime !== undefined && clock.now() > loopEntryTime + syncLoopMaxWaitMs) {
      return { healthy: false, message: 'sync Loop took longer than expected' };
    }
    return { healthy: true };
  };

  const getPods = (): Pod[] =>
    [...desired.values()].map((pod) => {
      const status = statuses.get(pod.metadata.uid);
      return status === undefined ? pod : { ...pod, status };
    });

  return {
    handlePodUpdate,
    setSourcesReady() {
      if (!sourcesReady) logger.info('All pod sources are ready');
      sourcesReady = true;
    },
    get sourcesReady() {
      return sourcesReady;
    },
    async run(signal) {
      if (started) throw new PodLifecycleError('SyncFailed', 'the pod lifecycle is already running');
      started = true;
      logger.info('Starting kubelet main sync loop');
      const unwatch = pleg.watch(onPlegEvent);
      const plegDone = pleg.run(signal);
      const timers: TimerHandle[] = [
        clock.setInterval(syncTick, SYNC_TICK_MS),
        clock.setInterval(() => void housekeeping(), housekeepingIntervalMs),
        clock.setInterval(() => void garbageCollect(), containerGCPeriodMs),
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
      await Promise.all([podWorkers.whenIdle(), housekeepingRunning]);
      logger.info('Kubelet main sync loop stopped');
    },
    getPods,
    getPodStatus: (uid) => statuses.get(uid),
    onStatusChange(listener, options) {
      listeners.set(listener, { everySync: options?.everySync === true });
      return () => listeners.delete(listener);
    },
    onPodRemoved(listener) {
      removedListeners.add(listener);
      return () => removedListeners.delete(listener);
    },
    requestSync(uid) {
      const pod = desired.get(uid);
      if (pod !== undefined && podWorkers.state(uid) === 'syncing' && statuses.has(uid)) {
        setStatus(pod, generate(pod, cache.get(uid).status, false));
      }
      // Upstream's sync loop handles probe result changes at once, not at its next 1 s tick.
      syncNow(uid);
    },
    addPodAdmitHandler(handler) {
      admitHandlers.push(handler);
      return () => {
        const i = admitHandlers.indexOf(handler);
        if (i >= 0) admitHandlers.splice(i, 1);
      };
    },
    evictPod,
    getActivePods,
    podResourcesAreReclaimed: (uid) => podWorkers.shouldPodContentBeRemoved(uid),
    housekeeping,
    healthCheckers: [pleg.healthChecker, toHealthChecker('syncloop', syncLoopHealthy)],
    pleg,
    podWorkers,
    cache,
  };
}
