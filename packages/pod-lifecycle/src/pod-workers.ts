import type { Pod } from '@kubelet-ts/api';
import type { Clock, Histogram, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, jitter, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { RunningPod, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { effectiveGracePeriodSeconds } from './internal/grace-period.js';
import type { PodStatusCache } from './pod-cache.js';

/** Upstream kubetypes.SyncPodType. */
export type PodUpdateType = 'create' | 'update' | 'sync' | 'kill';

/** Upstream UpdatePodOptions. */
export interface UpdatePodOptions {
  updateType: PodUpdateType;
  /** The desired pod; absent only for a kill of a pod known from the runtime alone. */
  pod?: Pod;
  /** A pod found in the runtime that no source wants (orphan): kill it. */
  runningPod?: RunningPod;
  /** Overrides the grace period of a kill; a later kill can only shorten it. */
  gracePeriodOverrideSeconds?: number;
}

/** Where a pod worker is in the pod's life: running → terminating → terminated (never back). */
export type PodWorkerState = 'syncing' | 'terminating' | 'terminated';

/** What `syncKnownPods` reports per UID; `terminatedAndRecreated`: a finished pod whose UID was re-added, forgotten so it can start again. */
export type KnownPodWorkState = PodWorkerState | 'terminatedAndRecreated';

/** The work a pod worker does, injected (upstream podSyncer: SyncPod, SyncTerminatingPod, SyncTerminatedPod). */
export interface PodSyncer {
  /** Converges a running pod. Resolves `true` when the pod reached a terminal phase (it then terminates). */
  syncPod(updateType: PodUpdateType, pod: Pod, status: RuntimePodStatus, signal: AbortSignal): Promise<boolean>;
  /**
   * Stops every container of the pod within the grace period. May resolve with the pod's status read
   * once everything stopped: the terminated step then uses it instead of waiting for the next relist
   * (upstream leaves that as a TODO in SyncTerminatingPod; nothing of the pod runs any more to change it).
   */
  syncTerminatingPod(pod: Pod, status: RuntimePodStatus, gracePeriodSeconds: number, signal: AbortSignal): Promise<RuntimePodStatus | void>;
  /** Stops a pod known only from the runtime (no spec). */
  syncTerminatingRuntimePod(runningPod: RunningPod, gracePeriodSeconds: number | undefined, signal: AbortSignal): Promise<void>;
  /** Releases what the stopped pod still holds (volumes); runs once after termination. */
  syncTerminatedPod(pod: Pod, status: RuntimePodStatus, signal: AbortSignal): Promise<void>;
}

export interface PodWorkersOptions {
  syncer: PodSyncer;
  cache: PodStatusCache;
  clock: Clock;
  logger?: Logger;
  /** Called when a pod should be synced again after `delayMs` (the sync loop's work queue). */
  requeue?: (uid: string, delayMs: number) => void;
  /** Resync after a successful sync: jitter(resyncInterval, 0.5), upstream workerResyncIntervalJitterFactor. Default 60 s. */
  resyncIntervalMs?: number;
  /** Retry after a failed sync: jitter(backOffPeriod, 0.5), upstream backOffPeriod 10 s. */
  backOffPeriodMs?: number;
  random?: () => number;
  /** Upstream's kubelet_containers_per_pod_count, observed when a pod's worker first syncs it. Default: none. */
  metrics?: Metrics;
}

/** A snapshot of one worker, for housekeeping. */
export interface PodWorkerInfo {
  uid: string;
  state: PodWorkerState;
  /** True once syncTerminatedPod (or a runtime-only termination) completed: nothing more will run. */
  finished: boolean;
  pod: Pod | undefined;
  runningPod: RunningPod | undefined;
  gracePeriodSeconds: number | undefined;
}

/**
 * Upstream pod_workers.go: one serial worker per pod UID. Updates arriving while a worker is busy
 * are coalesced (the latest wins); a pod once terminating never runs again, and a UID whose
 * termination was requested is refused for a new start until housekeeping forgets it.
 */
export interface PodWorkers {
  updatePod(options: UpdatePodOptions): void;
  /**
   * Forgets finished workers of pods that are no longer desired (and finished ones whose UID
   * was re-added, reported as `terminatedAndRecreated`). Returns the state of every worker known
   * after that. From the first call on, unknown UIDs are known not to have running containers.
   */
  syncKnownPods(desired: readonly Pod[]): Map<string, KnownPodWorkState>;
  /** Replays the worker's last update as a periodic 'sync' (with a newer spec when given). False when no worker exists. */
  resync(uid: string, pod?: Pod): boolean;
  state(uid: string): PodWorkerState | undefined;
  isPodKnown(uid: string): boolean;
  isPodTerminationRequested(uid: string): boolean;
  /** True while the pod could still have running containers (unknown pods: until the first syncKnownPods). */
  couldHaveRunningContainers(uid: string): boolean;
  /** True when the pod's worker finished, or the pod is unknown after the first syncKnownPods. */
  shouldPodContentBeRemoved(uid: string): boolean;
  workers(): PodWorkerInfo[];
  /** Resolves once no worker is processing anything (tests, shutdown). */
  whenIdle(): Promise<void>;
  /** Aborts in-flight work and refuses further updates. */
  stop(): void;
}

interface Pending {
  updateType: PodUpdateType;
  pod: Pod | undefined;
  runningPod: RunningPod | undefined;
}

interface WorkerStatus {
  uid: string;
  pod: Pod | undefined;
  runningPod: RunningPod | undefined;
  terminatingAt: number | undefined;
  terminatedAt: number | undefined;
  finished: boolean;
  gracePeriodSeconds: number | undefined;
  restartRequested: boolean;
  pending: Pending | undefined;
  working: Promise<void> | undefined;
  abort: AbortController | undefined;
  /** What the in-flight work is, so that a termination request can cancel a running syncPod. */
  activeWork: PodWorkerState | undefined;
  lastSyncTime: number;
  /** The worker synced the pod once (upstream startedAt). */
  started: boolean;
  /** The status syncTerminatingPod read once every container had stopped, for the terminated step. */
  stoppedStatus: RuntimePodStatus | undefined;
}

const RESYNC_JITTER_FACTOR = 0.5;
const BACKOFF_JITTER_FACTOR = 0.5;

function isTerminalPhase(pod: Pod | undefined): boolean {
  const phase = pod?.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** Past a back-off's end by this much, so the retry does not land a hair before it. */
const RETRY_HINT_MARGIN_MS = 50;

function retryHintMs(err: unknown): number | undefined {
  const hint = (err as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  return typeof hint === 'number' && Number.isFinite(hint) && hint >= 0 ? hint : undefined;
}

function uidOf(options: UpdatePodOptions): string | undefined {
  return options.pod?.metadata.uid ?? options.runningPod?.uid;
}

/** What every worker shares: the syncer, the cache, timing, and whether the workers were stopped. */
interface WorkersContext {
  syncer: PodSyncer;
  cache: PodStatusCache;
  clock: Clock;
  logger: Logger;
  requeue: (uid: string, delayMs: number) => void;
  resyncIntervalMs: number;
  backOffPeriodMs: number;
  random: () => number;
  stopped: boolean;
  containersPerPod: Histogram;
}

function stateOf(s: WorkerStatus): PodWorkerState {
  return s.terminatedAt !== undefined ? 'terminated' : s.terminatingAt !== undefined ? 'terminating' : 'syncing';
}

function podFields(s: WorkerStatus): Record<string, unknown> {
  return {
    pod: s.pod !== undefined ? `${s.pod.metadata.namespace}/${s.pod.metadata.name}` : `${s.runningPod?.namespace}/${s.runningPod?.name}`,
    podUID: s.uid,
  };
}

function newWorkerStatus(uid: string, update: UpdatePodOptions): WorkerStatus {
  return {
    uid,
    pod: update.pod,
    runningPod: update.runningPod,
    terminatingAt: undefined,
    terminatedAt: undefined,
    finished: false,
    gracePeriodSeconds: undefined,
    restartRequested: false,
    pending: undefined,
    working: undefined,
    abort: undefined,
    activeWork: undefined,
    lastSyncTime: 0,
    stoppedStatus: undefined,
    started: false,
  };
}

function requestTermination(ctx: WorkersContext, s: WorkerStatus, pod: Pod | undefined, overrideSeconds: number | undefined): void {
  const grace = effectiveGracePeriodSeconds(pod ?? s.pod, overrideSeconds);
  if (s.terminatingAt === undefined) {
    s.terminatingAt = ctx.clock.now();
    s.gracePeriodSeconds = s.runningPod !== undefined && s.pod === undefined ? overrideSeconds : grace;
    ctx.logger.debug('Pod is being terminated', { ...podFields(s), gracePeriod: s.gracePeriodSeconds });
    // A running syncPod must not go on starting containers: cancel it (upstream cancels its context).
    if (s.activeWork === 'syncing') s.abort?.abort(new Error('pod termination requested'));
  } else if (s.gracePeriodSeconds !== undefined && grace < s.gracePeriodSeconds) {
    // A later kill may only shorten the grace period.
    s.gracePeriodSeconds = grace;
  }
}

function completeWork(ctx: WorkersContext, s: WorkerStatus, work: PodWorkerState, err: unknown, aborted: boolean): void {
  s.lastSyncTime = ctx.clock.now();
  if (aborted) return;
  if (err !== undefined) {
    ctx.logger.error('Error syncing pod, skipping', { ...podFields(s), err: errorMessage(err), work });
    // A back-off with a known end (CrashLoopBackOff) is retried right when it ends, so restarts
    // follow 10 s, 20 s, 40 s… closely; any other error waits the generic jittered period.
    const hint = retryHintMs(err);
    const { backOffPeriodMs } = ctx;
    ctx.requeue(
      s.uid,
      hint !== undefined
        ? Math.min(hint + RETRY_HINT_MARGIN_MS, backOffPeriodMs * (1 + BACKOFF_JITTER_FACTOR))
        : jitter(backOffPeriodMs, BACKOFF_JITTER_FACTOR, ctx.random),
    );
    return;
  }
  if (work === 'syncing' && s.terminatingAt === undefined) {
    ctx.requeue(s.uid, jitter(ctx.resyncIntervalMs, RESYNC_JITTER_FACTOR, ctx.random));
  }
}

/** The work one pending update asks for, by where the pod is in its life (upstream podWorkerLoop's body). */
async function doWork(ctx: WorkersContext, s: WorkerStatus, pending: Pending, work: PodWorkerState, signal: AbortSignal): Promise<void> {
  const { syncer, logger } = ctx;
  if (s.pod === undefined) {
    // A runtime-only pod: there is no spec to sync, only something to stop.
    if (work === 'syncing' || s.runningPod === undefined) return;
    await syncer.syncTerminatingRuntimePod(s.runningPod, s.gracePeriodSeconds, signal);
    s.terminatedAt = ctx.clock.now();
    s.finished = true;
    logger.debug('Runtime pod terminated', podFields(s));
    return;
  }
  const pod = s.pod;
  const stopped = work === 'terminated' ? s.stoppedStatus : undefined;
  const status = stopped ?? (await ctx.cache.getNewerThan(s.uid, s.lastSyncTime, signal));
  switch (work) {
    case 'syncing': {
      // Upstream startPodSync: the containers of a pod its worker starts, once.
      if (!s.started) {
        s.started = true;
        ctx.containersPerPod.observe(pod.spec.containers.length);
      }
      const terminal = await syncer.syncPod(pending.updateType, pod, status, signal);
      if (terminal && s.terminatingAt === undefined) {
        logger.debug('Pod reached a terminal phase, terminating', podFields(s));
        requestTermination(ctx, s, pod, undefined);
      }
      break;
    }
    case 'terminating':
      s.stoppedStatus =
        (await syncer.syncTerminatingPod(pod, status, s.gracePeriodSeconds ?? effectiveGracePeriodSeconds(pod), signal)) ?? undefined;
      s.terminatedAt = ctx.clock.now();
      break;
    case 'terminated':
      await syncer.syncTerminatedPod(pod, status, signal);
      s.finished = true;
      logger.debug('Pod is terminated and all resources are reclaimed', podFields(s));
      break;
  }
}

async function runOnce(ctx: WorkersContext, s: WorkerStatus, pending: Pending): Promise<void> {
  const work = stateOf(s);
  if (s.finished) return;
  const controller = new AbortController();
  s.abort = controller;
  s.activeWork = work;
  let error: unknown;
  try {
    await doWork(ctx, s, pending, work, controller.signal);
  } catch (err) {
    error = err;
  } finally {
    const aborted = controller.signal.aborted;
    s.abort = undefined;
    s.activeWork = undefined;
    completeWork(ctx, s, work, error, aborted);
    // A transition (terminal phase, terminating → terminated) is acted on at once, as upstream.
    if (!s.finished && !ctx.stopped && stateOf(s) !== work && s.pending === undefined) {
      s.pending = { updateType: 'sync', pod: s.pod, runningPod: s.runningPod };
    }
  }
}

function drive(ctx: WorkersContext, s: WorkerStatus): void {
  if (s.working !== undefined) return;
  s.working = (async () => {
    try {
      while (s.pending !== undefined && !ctx.stopped) {
        const pending = s.pending;
        s.pending = undefined;
        await runOnce(ctx, s, pending);
      }
    } finally {
      s.working = undefined;
    }
  })();
}

/** Upstream UpdatePod: records the update on the worker (the latest wins) and starts the worker if idle. */
function updateWorker(ctx: WorkersContext, s: WorkerStatus, update: UpdatePodOptions): void {
  const { logger } = ctx;
  if (s.terminatingAt !== undefined && update.updateType === 'create') {
    // Upstream: a UID reused while (or after) terminating waits until housekeeping forgets the old worker.
    s.restartRequested = true;
    logger.info('Pod is terminating but has been requested to restart with same UID, will be reconciled later', podFields(s));
    return;
  }
  if (s.finished) {
    logger.debug('Pod is finished processing, no further updates', podFields(s));
    return;
  }
  if (update.pod !== undefined) s.pod = update.pod;
  if (update.runningPod !== undefined) s.runningPod = update.runningPod;
  const pod = update.pod ?? s.pod;
  if (update.updateType === 'kill' || pod?.metadata.deletionTimestamp !== undefined || isTerminalPhase(update.pod)) {
    requestTermination(ctx, s, pod, update.gracePeriodOverrideSeconds);
  }
  // The latest pending update wins; a create is never downgraded to a plain sync.
  const previous = s.pending;
  const updateType = previous?.updateType === 'create' && update.updateType !== 'kill' ? 'create' : update.updateType;
  s.pending = { updateType, pod: s.pod, runningPod: s.runningPod };
  drive(ctx, s);
}

/** Upstream SyncKnownPods: forgets finished workers no source wants; a finished one whose UID came back is forgotten too and reported. */
function syncKnownWorkers(statuses: Map<string, WorkerStatus>, desired: readonly Pod[], logger: Logger): Map<string, KnownPodWorkState> {
  const wanted = new Set(desired.map((p) => p.metadata.uid));
  const out = new Map<string, KnownPodWorkState>();
  for (const [uid, s] of statuses) {
    if (!s.finished) {
      out.set(uid, stateOf(s));
      continue;
    }
    if (!wanted.has(uid)) {
      statuses.delete(uid);
      logger.debug('Forgetting finished pod worker', podFields(s));
    } else if (s.restartRequested) {
      statuses.delete(uid);
      out.set(uid, 'terminatedAndRecreated');
    } else {
      out.set(uid, 'terminated');
    }
  }
  return out;
}

export function createPodWorkers(options: PodWorkersOptions): PodWorkers {
  const ctx: WorkersContext = {
    syncer: options.syncer,
    cache: options.cache,
    clock: options.clock,
    logger: options.logger ?? noopLogger,
    requeue: options.requeue ?? ((): void => undefined),
    resyncIntervalMs: options.resyncIntervalMs ?? 60_000,
    backOffPeriodMs: options.backOffPeriodMs ?? 10_000,
    random: options.random ?? Math.random,
    stopped: false,
    containersPerPod: (options.metrics ?? noopMetrics).histogram({
      name: 'kubelet_containers_per_pod_count',
      help: 'The number of containers per pod.',
      // Upstream ExponentialBuckets(1, 2, 5).
      buckets: [1, 2, 4, 8, 16],
    }),
  };
  const statuses = new Map<string, WorkerStatus>();
  let podsSynced = false;

  const api: PodWorkers = {
    updatePod(update) {
      if (ctx.stopped) return;
      const uid = uidOf(update);
      if (uid === undefined) {
        ctx.logger.warn('Pod update without a pod or running pod, ignored', { updateType: update.updateType });
        return;
      }
      let s = statuses.get(uid);
      if (s === undefined) {
        s = newWorkerStatus(uid, update);
        statuses.set(uid, s);
      }
      updateWorker(ctx, s, update);
    },
    syncKnownPods(desired) {
      podsSynced = true;
      return syncKnownWorkers(statuses, desired, ctx.logger);
    },
    resync(uid, pod) {
      const s = statuses.get(uid);
      if (s === undefined) return false;
      api.updatePod({
        updateType: 'sync',
        ...((pod ?? s.pod) ? { pod: pod ?? s.pod } : {}),
        ...(s.runningPod ? { runningPod: s.runningPod } : {}),
      });
      return true;
    },
    state(uid) {
      const s = statuses.get(uid);
      return s === undefined ? undefined : stateOf(s);
    },
    isPodKnown: (uid) => statuses.has(uid),
    isPodTerminationRequested: (uid) => statuses.get(uid)?.terminatingAt !== undefined,
    couldHaveRunningContainers(uid) {
      const s = statuses.get(uid);
      return s === undefined ? !podsSynced : s.terminatedAt === undefined;
    },
    shouldPodContentBeRemoved(uid) {
      const s = statuses.get(uid);
      return s === undefined ? podsSynced : s.finished;
    },
    workers: () =>
      [...statuses.values()].map((s) => ({
        uid: s.uid,
        state: stateOf(s),
        finished: s.finished,
        pod: s.pod,
        runningPod: s.runningPod,
        gracePeriodSeconds: s.gracePeriodSeconds,
      })),
    async whenIdle() {
      for (;;) {
        const busy = [...statuses.values()].map((s) => s.working).filter((w): w is Promise<void> => w !== undefined);
        if (busy.length === 0) return;
        await Promise.all(busy);
      }
    },
    stop() {
      ctx.stopped = true;
      for (const s of statuses.values()) s.abort?.abort(new Error('pod workers stopped'));
    },
  };
  return api;
}
