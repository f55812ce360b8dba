import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, forEachBounded, formatGoDuration, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { ContainerRuntime, RunningPod, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { HealthChecker, HealthCheckResult } from './health.js';
import { toHealthChecker } from './health.js';
import type { PodStatusCache } from './pod-cache.js';

/** Upstream pleg.PodLifeCycleEventType. `ContainerChanged` is computed but never delivered, as upstream. */
export type PodLifecycleEventType = 'ContainerStarted' | 'ContainerDied' | 'ContainerRemoved' | 'ContainerChanged' | 'PodSync';

/** One change seen in the runtime. `data` is the container (or sandbox) ID. */
export interface PodLifecycleEvent {
  /** Pod UID. */
  id: string;
  type: PodLifecycleEventType;
  data: string;
}

/**
 * Upstream pleg.PodLifecycleEventGenerator. The generic implementation polls the runtime; the
 * evented one (`createEventedPleg`) takes the runtime's container events and keeps a generic one
 * underneath as its safety net.
 */
export interface PodLifecycleEventGenerator {
  /** Runs until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Subscribes to events; returns the unsubscribe function. */
  watch(listener: (event: PodLifecycleEvent) => void): () => void;
  /** Upstream Healthy(): unhealthy before the first successful relist or when the last is too old. */
  healthy(): HealthCheckResult;
  /** The `pleg` health check. */
  readonly healthChecker: HealthChecker;
  /** One relist now (also what `run` does every period). */
  relist(): Promise<void>;
}

export interface GenericPlegOptions {
  runtime: Pick<ContainerRuntime, 'getPods' | 'getPodStatus'>;
  cache: PodStatusCache;
  clock: Clock;
  logger?: Logger;
  /** Relist durations and intervals (upstream's PLEG metrics). Default: none. */
  metrics?: Metrics;
  /** Default 1 s (upstream genericPlegRelistPeriod). */
  relistPeriodMs?: number;
  /** Default 3 min (upstream genericPlegRelistThreshold). */
  relistThresholdMs?: number;
}

/** Upstream pleg.RelistDuration: how often the generic PLEG relists, and when it is declared unhealthy. */
export interface RelistDuration {
  /** Time between the end of one relist and the start of the next. */
  relistPeriodMs: number;
  /** Longer than the period plus a relist's own duration, which varies a lot: conservative, so health does not flip. */
  relistThresholdMs: number;
}

/** The generic PLEG with what the evented one drives (upstream podLifecycleEventGeneratorHandler). */
export interface GenericPleg extends PodLifecycleEventGenerator {
  /**
   * Upstream Stop, Update(relistDuration), Start: the new period and threshold take effect at once, a
   * running loop relists now and then every new period.
   */
  update(duration: RelistDuration): void;
  /** The period and threshold in effect. */
  readonly relistDuration: RelistDuration;
}

/**
 * Upstream's kubelet_running_pods and kubelet_running_containers, defined once for both PLEGs: the
 * generic one sets them at each relist, the evented one moves them with each event.
 */
export function runningMetrics(metrics: Metrics) {
  return {
    pods: metrics.gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox' }),
    containers: metrics.gauge<'container_state'>({
      name: 'kubelet_running_containers',
      help: 'Number of containers currently running',
      labelNames: ['container_state'],
    }),
  };
}

/**
 * Upstream's kubelet_pleg_last_seen_seconds, set by both PLEGs' health checks (for alerts on
 * `time() - kubelet_pleg_last_seen_seconds`), and kubelet_pleg_discard_events: upstream counts the
 * events it drops when its 1000-event channel is full. Events here go to the listeners as they come,
 * through no channel, so none is ever dropped and the counter stays 0 (defined, as upstream always
 * exposes it).
 */
export function plegHealthMetrics(metrics: Metrics) {
  metrics.counter({ name: 'kubelet_pleg_discard_events', help: 'The number of discard events in PLEG.' });
  return {
    lastSeen: metrics.gauge({ name: 'kubelet_pleg_last_seen_seconds', help: 'Timestamp in seconds when PLEG was last seen active.' }),
  };
}

type PlegContainerState = 'running' | 'exited' | 'unknown' | 'non-existent';

interface PodRecord {
  old: RunningPod | undefined;
  current: RunningPod | undefined;
}

function containerStates(pod: RunningPod | undefined): Map<string, PlegContainerState> {
  const out = new Map<string, PlegContainerState>();
  if (pod === undefined) return out;
  // Sandboxes are tracked like containers (upstream getContainersFromPods).
  for (const s of pod.sandboxes) out.set(s.id, s.state === 'ready' ? 'running' : 'exited');
  for (const c of pod.containers) {
    // "created" is not used by the kubelet yet: upstream maps it to unknown.
    out.set(c.id, c.state === 'running' ? 'running' : c.state === 'exited' ? 'exited' : 'unknown');
  }
  return out;
}

function generateEvents(uid: string, id: string, oldState: PlegContainerState, newState: PlegContainerState): PodLifecycleEvent[] {
  if (oldState === newState) return [];
  switch (newState) {
    case 'running':
      return [{ id: uid, type: 'ContainerStarted', data: id }];
    case 'exited':
      return [{ id: uid, type: 'ContainerDied', data: id }];
    case 'unknown':
      return [{ id: uid, type: 'ContainerChanged', data: id }];
    case 'non-existent':
      if (oldState === 'exited') return [{ id: uid, type: 'ContainerRemoved', data: id }];
      return [
        { id: uid, type: 'ContainerDied', data: id },
        { id: uid, type: 'ContainerRemoved', data: id },
      ];
  }
}

/** Whether a status lists exactly the relist's sandboxes and containers, each in the state the relist saw. */
function showsSameState(status: RuntimePodStatus, pod: RunningPod): boolean {
  if (status.sandboxes.length !== pod.sandboxes.length || status.containers.length !== pod.containers.length) return false;
  const seen = new Map<string, string>();
  for (const s of pod.sandboxes) seen.set(s.id, s.state);
  for (const c of pod.containers) seen.set(c.id, c.state);
  return status.sandboxes.every((s) => seen.get(s.id) === s.state) && status.containers.every((c) => seen.get(c.id) === c.state);
}

/**
 * Takes a relist into the records (`current`) and returns each changed pod's events, from the
 * container and sandbox states of the last committed relist (`old`) to this one.
 */
function diffRelist(records: Map<string, PodRecord>, pods: readonly RunningPod[]): Map<string, PodLifecycleEvent[]> {
  const current = new Map(pods.map((p) => [p.uid, p]));
  for (const [uid, record] of records) record.current = current.get(uid);
  for (const [uid, pod] of current) if (!records.has(uid)) records.set(uid, { old: undefined, current: pod });

  const eventsByPod = new Map<string, PodLifecycleEvent[]>();
  for (const [uid, record] of records) {
    const oldStates = containerStates(record.old);
    const newStates = containerStates(record.current);
    const ids = new Set([...oldStates.keys(), ...newStates.keys()]);
    const events: PodLifecycleEvent[] = [];
    for (const id of ids) events.push(...generateEvents(uid, id, oldStates.get(id) ?? 'non-existent', newStates.get(id) ?? 'non-existent'));
    if (events.length > 0) eventsByPod.set(uid, events);
  }
  return eventsByPod;
}

/**
 * Reads a changed pod's status into the cache (upstream updateCache); a pod gone from the runtime
 * is dropped. Resolves with the read's error, if any.
 */
async function updateCache(
  o: Pick<GenericPlegOptions, 'runtime' | 'cache' | 'clock'>,
  uid: string,
  pod: RunningPod | undefined,
): Promise<Error | undefined> {
  const { cache } = o;
  if (pod === undefined) {
    // The pod is gone from the runtime: drop its entry.
    cache.delete(uid);
    return undefined;
  }
  const timestamp = o.clock.now();
  // A status already cached (the lifecycle reads one right after a start) that shows every sandbox and
  // container this relist saw, in the same states, is what a read would return: no need to ask again.
  const cached = cache.get(uid);
  if (cached.error === undefined && cached.modifiedAt > 0 && showsSameState(cached.status, pod)) return undefined;
  try {
    const status = await o.runtime.getPodStatus(pod.uid, pod.name, pod.namespace);
    // The lifecycle may have stored a read that began after this one (its refresh after a start).
    if (cache.get(uid).modifiedAt > timestamp) return undefined;
    cache.set(uid, status, undefined, timestamp);
    return undefined;
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    cache.set(uid, undefined, error, timestamp);
    return error;
  }
}

/** Upstream GenericPLEG.Healthy: unhealthy before the first successful relist, or when the last one is too old. */
function plegHealth(relistTime: number | undefined, now: number, thresholdMs: number): HealthCheckResult {
  if (relistTime === undefined) return { healthy: false, message: 'pleg has yet to be successful' };
  const elapsed = now - relistTime;
  if (elapsed > thresholdMs) {
    return {
      healthy: false,
      message: `pleg was last seen active ${formatGoDuration(elapsed)} ago; threshold is ${formatGoDuration(thresholdMs)}`,
    };
  }
  return { healthy: true };
}

/** How many changed pods' statuses a relist reads at once. */
const STATUS_READS_AT_ONCE = 8;

/** Upstream genericPlegRelistPeriod and genericPlegRelistThreshold. */
export const GENERIC_PLEG_RELIST_DURATION: Readonly<RelistDuration> = { relistPeriodMs: 1_000, relistThresholdMs: 180_000 };

/** Upstream GenericPLEG (pleg/generic.go): relists the runtime and diffs it against the last relist. */
export function createGenericPleg(options: GenericPlegOptions): GenericPleg {
  const { runtime, cache, clock } = options;
  const logger = options.logger ?? noopLogger;
  let relistPeriodMs = options.relistPeriodMs ?? GENERIC_PLEG_RELIST_DURATION.relistPeriodMs;
  let relistThresholdMs = options.relistThresholdMs ?? GENERIC_PLEG_RELIST_DURATION.relistThresholdMs;
  // Ends the running loop's wait early (the signal aborted, or `update` changed the period).
  let wakeUp: (() => void) | undefined;
  const records = new Map<string, PodRecord>();
  const listeners = new Set<(event: PodLifecycleEvent) => void>();
  let podsToReinspect = new Map<string, RunningPod | undefined>();
  let relistTime: number | undefined;
  let relisting: Promise<void> | undefined;
  const metrics = options.metrics ?? noopMetrics;
  const relistDuration = metrics.histogram({
    name: 'kubelet_pleg_relist_duration_seconds',
    help: 'Duration in seconds for relisting pods in PLEG.',
  });
  const relistInterval = metrics.histogram({
    name: 'kubelet_pleg_relist_interval_seconds',
    help: 'Interval in seconds between relisting in PLEG.',
  });
  // Upstream updateRunningPodAndContainerMetrics, at every relist.
  const { pods: runningPods, containers: runningContainers } = runningMetrics(metrics);
  const seenContainerStates = new Set<string>();
  const updateRunningMetrics = (pods: readonly RunningPod[]): void => {
    const byState = new Map<string, number>();
    let running = 0;
    for (const pod of pods) {
      for (const c of pod.containers) byState.set(c.state, (byState.get(c.state) ?? 0) + 1);
      if (pod.sandboxes.some((s) => s.state === 'ready')) running++;
    }
    // A state that no container is in any more reads 0 (upstream keeps its last count).
    for (const state of byState.keys()) seenContainerStates.add(state);
    for (const state of seenContainerStates) runningContainers.set({ container_state: state }, byState.get(state) ?? 0);
    runningPods.set(running);
  };
  const { lastSeen } = plegHealthMetrics(metrics);
  let lastRelistStart: number | undefined;

  const emit = (event: PodLifecycleEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        logger.error('PLEG event listener failed', { err: errorMessage(err), podUID: event.id });
      }
    }
  };

  const doRelist = async (): Promise<void> => {
    const timestamp = clock.now();
    if (lastRelistStart !== undefined) relistInterval.observe((timestamp - lastRelistStart) / 1000);
    lastRelistStart = timestamp;
    try {
      await relistOnce(timestamp);
    } finally {
      relistDuration.observe((clock.now() - timestamp) / 1000);
    }
  };

  const relistOnce = async (timestamp: number): Promise<void> => {
    let pods: RunningPod[];
    try {
      pods = await runtime.getPods(true);
    } catch (err) {
      logger.error('GenericPLEG: Unable to retrieve pods', { err: errorMessage(err) });
      return;
    }
    relistTime = timestamp;
    updateRunningMetrics(pods);

    const eventsByPod = diffRelist(records, pods);

    // The changed pods' statuses are read a few at a time (upstream reads them one by one): when 110 pods
    // start or stop at once, a relist that reads them sequentially takes seconds, and every pod worker
    // waits for it.
    const inspected = new Map<string, Error | undefined>();
    const toInspect = [...records].filter(([uid]) => eventsByPod.has(uid) || podsToReinspect.has(uid));
    await forEachBounded(toInspect, STATUS_READS_AT_ONCE, async ([uid, record]) => {
      inspected.set(uid, await updateCache(options, uid, record.current));
    });

    const needsReinspection = new Map<string, RunningPod | undefined>();
    for (const [uid, record] of [...records]) {
      const events = eventsByPod.get(uid);
      const pod = record.current;
      if (inspected.has(uid)) {
        const err = inspected.get(uid);
        if (err !== undefined) {
          logger.error('PLEG: Ignoring events for pod', { pod: `${pod?.namespace}/${pod?.name}`, podUID: uid, err: errorMessage(err) });
          needsReinspection.set(uid, pod);
          // Keep the old record so that the same changes are seen (and sent) again next time.
          continue;
        }
      }
      // Commit this relist as the base of the next one.
      if (pod === undefined) records.delete(uid);
      else record.old = pod;
      for (const event of events ?? []) {
        if (event.type === 'ContainerChanged') continue;
        emit(event);
      }
    }
    podsToReinspect = needsReinspection;
    // Every pod without changes is as current as this relist.
    cache.updateTime(timestamp);
  };

  const healthy = (): HealthCheckResult => {
    // Upstream Healthy: the last relist's time, in whole seconds (time.Unix).
    if (relistTime !== undefined) lastSeen.set(Math.floor(relistTime / 1000));
    return plegHealth(relistTime, clock.now(), relistThresholdMs);
  };

  const relist = (): Promise<void> => {
    // Never two relists at once.
    if (relisting === undefined) {
      relisting = doRelist().finally(() => {
        relisting = undefined;
      });
    }
    return relisting;
  };

  return {
    async run(signal) {
      while (!signal.aborted) {
        await relist();
        if (signal.aborted) return;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clock.clearTimeout(timer);
            signal.removeEventListener('abort', done);
            wakeUp = undefined;
            resolve();
          };
          const timer = clock.setTimeout(done, relistPeriodMs);
          signal.addEventListener('abort', done, { once: true });
          wakeUp = done;
        });
      }
    },
    update(duration) {
      relistPeriodMs = duration.relistPeriodMs;
      relistThresholdMs = duration.relistThresholdMs;
      wakeUp?.();
    },
    get relistDuration() {
      return { relistPeriodMs, relistThresholdMs };
    },
    watch(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    healthy,
    healthChecker: toHealthChecker('pleg', healthy),
    relist,
  };
}
