import type { Pod, PodStatus } from '@kubelet-ts/api';
import type { Backoff, Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopEventRecorder, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { ContainerGCPolicy, ContainerRuntime } from '@kubelet-ts/container-runtime';
import type { StatusManager } from '@kubelet-ts/status-manager';
import { createStatusManager } from '@kubelet-ts/status-manager';
import type { HealthChecker } from './health.js';
import { createAdmission } from './internal/admission.js';
import { createContainerGC } from './internal/container-gc.js';
import { createDispatcher } from './internal/dispatch.js';
import { createHousekeeping } from './internal/housekeeping.js';
import { createPodKiller } from './internal/kill-pod.js';
import { readMountPoints } from './internal/pod-dirs.js';
import { createPodManager } from './internal/pod-manager.js';
import { applyProbeResult, createStatusGenerator } from './internal/pod-status.js';
import { createSyncLoop } from './internal/sync-loop.js';
import { createPodSyncer } from './internal/syncer.js';
import { createWorkQueue } from './internal/work-queue.js';
import { createPodStatusCache } from './pod-cache.js';
import type { PodStartupLatencyTracker } from './pod-startup-latency.js';
import type { PodStatusCache } from './pod-cache.js';
import { createPodWorkers } from './pod-workers.js';
import type { PodWorkers } from './pod-workers.js';
import { createEventedPleg, EVENTED_PLEG_RELIST_DURATION } from './evented-pleg.js';
import type { ContainerEventSource } from './evented-pleg.js';
import { createGenericPleg, GENERIC_PLEG_RELIST_DURATION } from './pleg.js';
import type { PodLifecycleEventGenerator } from './pleg.js';
import { createReasonCache } from './reason-cache.js';
import type { ReadinessProvider, StartupProvider } from './status/generate.js';
import type {
  EvictPodRequest,
  PodAdmitHandler,
  PodCgroupsHook,
  PodObjectRegistry,
  PodUpdate,
  ProbeResultUpdate,
  VolumeProvider,
} from './types.js';

/** Upstream defaults: MaxPerPodContainer 1, MaxContainers -1, MinAge 0. */
export const DEFAULT_GC_POLICY: ContainerGCPolicy = { minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 };

export interface PodLifecycleOptions {
  runtime: ContainerRuntime;
  clock?: Clock;
  logger?: Logger;
  /** Events about pods (admission refusals, failed mounts and pod cgroups). Default: none. */
  recorder?: EventRecorder;
  /** Pod worker durations, restarted and orphaned pods, PLEG relists. Default: none. */
  metrics?: Metrics;
  /**
   * The pod startup latency tracker (kubelet_pod_start_sli_duration_seconds): the lifecycle tells it of
   * every status it sets, of the init containers' runs, and of pods removed; the pod sources and the
   * image puller tell it the rest. Default: none.
   */
  podStartupTracker?: PodStartupLatencyTracker;
  /** Where pod statuses are kept (and sent, in API mode). Default: a standalone one of its own. */
  statusManager?: StatusManager;
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
  /** A PLEG of the caller's own instead of the generic (polling) or evented one. */
  pleg?: PodLifecycleEventGenerator;
  /**
   * The runtime's container events (upstream's EventedPLEG, feature gate `EventedPLEG`): container changes
   * come from them and the generic PLEG relists only every 300 s (unhealthy after 10 min), until the stream
   * fails 5 times; then it relists every `plegRelistPeriodMs` again. Default: none, the generic PLEG alone.
   */
  containerEvents?: ContainerEventSource;
  /** Pod cgroups: made before the runtime syncs a pod, removed after it terminated. Omit to leave cgroups to the runtime. */
  podCgroups?: PodCgroupsHook;
  /** Admission (upstream admitHandlers), consulted in order before a new pod starts; more with `addPodAdmitHandler`. */
  admitHandlers?: readonly PodAdmitHandler[];
  /** Told of every pod added, updated and removed (upstream secret/configMap managers' RegisterPod); none standalone. */
  objectRegistry?: PodObjectRegistry;
}

/**
 * Upstream Kubelet.syncLoop and its handlers: takes pod updates from the sources, drives one
 * pod worker per pod, polls the runtime (PLEG), resyncs, does housekeeping and container GC,
 * and keeps every pod's generated status in the status manager.
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
  /** The status manager's status of the pod. */
  getPodStatus(uid: string): PodStatus | undefined;
  /**
   * Called with a pod's UID once the lifecycle forgot it (stopped, and no source has it): per-pod
   * state kept elsewhere (probe workers) can go. No status change follows for that UID unless a
   * source adds it again.
   */
  onPodRemoved(listener: (uid: string) => void): () => void;
  /**
   * A probe result of the pod changed (upstream syncLoopIteration's prober updates): a readiness or
   * startup change shows in the status at once (upstream SetContainerReadiness/SetContainerStartup),
   * and the pod syncs without waiting for the sync tick (upstream handleProbeSync).
   */
  handleProbeResult(update: ProbeResultUpdate): void;
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
  /**
   * Upstream podWorkers.CouldHaveRunningContainers: false once the pod's containers are known to be
   * stopped for good. The API status sink holds a pod's terminal phase back while this is true. An
   * unknown UID could have some until housekeeping first compared the runtime with the sources.
   */
  couldHaveRunningContainers(uid: string): boolean;
  /** `pleg` and `syncloop`. */
  readonly healthCheckers: readonly HealthChecker[];
}

/** The lifecycle with the pieces it is composed of, for tests (see `createPodLifecycleForTest`). */
export interface ComposedPodLifecycle {
  lifecycle: PodLifecycle;
  podWorkers: PodWorkers;
  pleg: PodLifecycleEventGenerator;
  cache: PodStatusCache;
  statusManager: StatusManager;
  /** One housekeeping pass now (what `run` does every housekeeping interval). */
  housekeeping(): Promise<void>;
}

export function createPodLifecycle(options: PodLifecycleOptions): PodLifecycle {
  return composePodLifecycle(options).lifecycle;
}

/** Builds the pieces (upstream's Kubelet fields) and wires them to one another. */
export function composePodLifecycle(options: PodLifecycleOptions): ComposedPodLifecycle {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const recorder = options.recorder ?? noopEventRecorder;
  const metrics = options.metrics ?? noopMetrics;
  const { runtime, volumes, podCgroups, rootDir, readiness, startup } = options;
  const statusManager = options.statusManager ?? createStatusManager({ clock, logger });
  const backoff = options.crashLoopBackoff ?? createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
  const syncFrequencyMs = options.syncFrequencyMs ?? 60_000;
  const cache = createPodStatusCache();
  const reasons = createReasonCache();
  const workQueue = createWorkQueue(clock);
  const pods = createPodManager({ metrics, objectRegistry: options.objectRegistry });
  /** Pods the kubelet stopped itself (evicted or refused at admission): their terminal status, kept while known. */
  const stoppedByKubelet = new Map<string, EvictPodRequest>();
  const removedListeners = new Set<(uid: string) => void>();
  let sourcesReady = false;

  const buildPleg = (): PodLifecycleEventGenerator => {
    const relistDuration = {
      relistPeriodMs: options.plegRelistPeriodMs ?? GENERIC_PLEG_RELIST_DURATION.relistPeriodMs,
      relistThresholdMs: options.plegRelistThresholdMs ?? GENERIC_PLEG_RELIST_DURATION.relistThresholdMs,
    };
    const plegLogger = logger.child({ component: 'pleg' });
    const source = options.containerEvents;
    // Upstream NewMainKubelet: with EventedPLEG the generic PLEG starts at the longer period, and the evented one
    // knows the normal one to fall back to.
    const genericPleg = createGenericPleg({
      runtime,
      cache,
      clock,
      logger: plegLogger,
      metrics,
      ...(source !== undefined ? EVENTED_PLEG_RELIST_DURATION : relistDuration),
    });
    if (source === undefined) return genericPleg;
    return createEventedPleg({
      source,
      genericPleg,
      cache,
      clock,
      logger: logger.child({ component: 'evented-pleg' }),
      metrics,
      fallbackRelistDuration: relistDuration,
    });
  };
  const pleg = options.pleg ?? buildPleg();
  const generate = createStatusGenerator({
    statusManager,
    stoppedByKubelet,
    reasons,
    readiness,
    startup,
    getNodeIPs: options.getNodeIPs,
    runtimeName: options.runtimeName ?? 'containerd',
    clock,
  });
  const syncer = createPodSyncer({
    runtime,
    statusManager,
    generate,
    cache,
    reasons,
    backoff,
    podCgroups,
    volumes,
    rootDir,
    syncNow: (uid) => dispatcher.syncNow(uid),
    podKilled: (uid) => killer.podKilled(uid),
    isPodDeleted: (uid) => sourcesReady && !pods.hasPod(uid),
    clock,
    logger,
    recorder,
    metrics,
    startupTracker: options.podStartupTracker,
  });
  const podWorkers = createPodWorkers({
    syncer,
    cache,
    clock,
    logger,
    resyncIntervalMs: syncFrequencyMs,
    requeue: (uid, delayMs) => workQueue.enqueue(uid, delayMs),
    metrics,
    ...(options.random !== undefined ? { random: options.random } : {}),
  });
  const dispatcher = createDispatcher(podWorkers, pods);
  const { dispatch } = dispatcher;
  const killer = createPodKiller({ pods, podWorkers, stoppedByKubelet, statusManager, generate, cache, dispatch, clock });

  const isTerminalStatus = (uid: string): boolean => {
    const phase = statusManager.getPodStatus(uid)?.phase;
    return phase === 'Succeeded' || phase === 'Failed';
  };
  // Upstream GetActivePods / filterOutInactivePods.
  const getActivePods = (): Pod[] =>
    pods.getPods().filter((pod) => {
      const uid = pod.metadata.uid;
      if (stoppedByKubelet.has(uid)) return false;
      if (podWorkers.state(uid) === 'terminated') return false;
      return !(isTerminalStatus(uid) && !podWorkers.isPodTerminationRequested(uid));
    });
  const admission = createAdmission({
    handlers: options.admitHandlers ?? [],
    podWorkers,
    stoppedByKubelet,
    statusManager,
    getActivePods,
    dispatch,
    logger,
    recorder,
  });
  const garbageCollect = createContainerGC({
    runtime,
    policy: options.gcPolicy ?? DEFAULT_GC_POLICY,
    sourcesReady: () => sourcesReady,
    isPodDeleted: (uid) => !pods.hasPod(uid) && podWorkers.shouldPodContentBeRemoved(uid),
    logger,
  });
  const startupTracker = options.podStartupTracker;
  if (startupTracker !== undefined) {
    // Upstream's status manager tells the tracker of every status it is given.
    statusManager.onStatusChange((pod, status) => startupTracker.recordStatusUpdated({ ...pod, status }));
    removedListeners.add((uid) => startupTracker.deletePodStartupState(uid));
  }
  const notifyRemoved = (uid: string): void => {
    for (const listener of removedListeners) {
      try {
        listener(uid);
      } catch (err) {
        logger.error('Pod removal listener failed', { podUID: uid, err: errorMessage(err) });
      }
    }
  };
  const housekeeping = createHousekeeping({
    sourcesReady: () => sourcesReady,
    pods,
    podWorkers,
    statusManager,
    reasons,
    stoppedByKubelet,
    runtime,
    podCgroups,
    volumes,
    rootDir,
    backoff,
    dispatch,
    getActivePods,
    garbageCollect,
    logger,
    metrics,
    mountPoints: options.mountPoints ?? ((): Promise<string[]> => readMountPoints()),
    podRemoved: notifyRemoved,
  });
  const syncLoop = createSyncLoop({
    pods,
    podWorkers,
    pleg,
    statusManager,
    workQueue,
    admission,
    dispatch,
    garbageCollect,
    syncFrequencyMs,
    clock,
    logger,
    housekeeping: housekeeping.housekeeping,
    housekeepingRunning: housekeeping.running,
    housekeepingIntervalMs: options.housekeepingIntervalMs ?? 2_000,
    containerGCPeriodMs: options.containerGCPeriodMs ?? 60_000,
  });

  const lifecycle: PodLifecycle = {
    handlePodUpdate: syncLoop.handlePodUpdate,
    setSourcesReady() {
      if (!sourcesReady) logger.info('All pod sources are ready');
      sourcesReady = true;
    },
    get sourcesReady() {
      return sourcesReady;
    },
    run: (signal) => syncLoop.run(signal),
    getPods: () =>
      pods.getPods().map((pod) => {
        const status = statusManager.getPodStatus(pod.metadata.uid);
        return status === undefined ? pod : { ...pod, status };
      }),
    getPodStatus: (uid) => statusManager.getPodStatus(uid),
    onPodRemoved(listener) {
      removedListeners.add(listener);
      return () => removedListeners.delete(listener);
    },
    handleProbeResult(update) {
      const pod = pods.getPodByUID(update.podUID);
      if (pod !== undefined && podWorkers.state(update.podUID) === 'syncing')
        applyProbeResult({ statusManager, readiness, startup, generate, cache }, pod, update);
      // Upstream's sync loop handles probe result changes at once, not at its next 1 s tick.
      dispatcher.syncNow(update.podUID);
    },
    addPodAdmitHandler: (handler) => admission.addPodAdmitHandler(handler),
    evictPod: (uid, request) => killer.evictPod(uid, request),
    getActivePods,
    podResourcesAreReclaimed: (uid) => podWorkers.shouldPodContentBeRemoved(uid),
    couldHaveRunningContainers: (uid) => podWorkers.couldHaveRunningContainers(uid),
    healthCheckers: [pleg.healthChecker, syncLoop.healthChecker],
  };
  return { lifecycle, podWorkers, pleg, cache, statusManager, housekeeping: housekeeping.housekeeping };
}
