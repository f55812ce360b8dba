import type { Clock, Logger, Metrics, TimerHandle } from '@kubelet-ts/common';
import { errorMessage, noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { RuntimeContainerStatus, RuntimePodStatus, RuntimeSandboxStatus } from '@kubelet-ts/container-runtime';
import { PodLifecycleError } from './errors.js';
import type { HealthCheckResult } from './health.js';
import { toHealthChecker } from './health.js';
import type { PodStatusCache } from './pod-cache.js';
import type { GenericPleg, PodLifecycleEvent, PodLifecycleEventGenerator, RelistDuration } from './pleg.js';
import { GENERIC_PLEG_RELIST_DURATION, plegHealthMetrics, runningMetrics } from './pleg.js';

/** CRI ContainerEventType. */
export type ContainerEventType =
  'CONTAINER_CREATED_EVENT' | 'CONTAINER_STARTED_EVENT' | 'CONTAINER_STOPPED_EVENT' | 'CONTAINER_DELETED_EVENT';

/**
 * One CRI ContainerEventResponse with its PodSandboxStatus and ContainersStatuses converted to the
 * runtime contract's pod status (upstream Runtime.GeneratePodStatus), as the event source delivers it.
 */
export interface RuntimeContainerEvent {
  /** The container (or sandbox) the event is about. */
  containerId: string;
  /** What happened to it. */
  type: ContainerEventType;
  /** When the runtime generated the event (ms since the epoch): the time of the cache entry it writes. */
  createdAt: number;
  /** The pod as the event shows it; undefined when the runtime sent no sandbox status (or no metadata in it). */
  podStatus: RuntimePodStatus | undefined;
}

/** The runtime's container event stream (CRI RuntimeService.GetContainerEvents). */
export interface ContainerEventSource {
  /**
   * Opens the stream, which yields until the signal aborts. Throwing, or ending before the signal
   * aborted, is a failed stream (upstream counts an EOF as an error too).
   */
  getContainerEvents(signal: AbortSignal): AsyncIterable<RuntimeContainerEvent>;
}

/** Upstream eventedPlegRelistPeriod and eventedPlegRelistThreshold: the generic PLEG's while events flow. */
export const EVENTED_PLEG_RELIST_DURATION: Readonly<RelistDuration> = { relistPeriodMs: 300_000, relistThresholdMs: 600_000 };

/** Upstream eventedPlegMaxStreamRetries. */
export const EVENTED_PLEG_MAX_STREAM_RETRIES = 5;

/** Upstream globalCacheUpdatePeriod: a pod worker waiting for a newer status never waits longer. */
const GLOBAL_CACHE_UPDATE_PERIOD_MS = 5_000;

/** What the evented PLEG is built from; every collaborator injected. */
export interface EventedPlegOptions {
  /** Where the container events come from (CRI GetContainerEvents in the kubelet). */
  source: ContainerEventSource;
  /**
   * The generic PLEG underneath, relisting at EVENTED_PLEG_RELIST_DURATION: it keeps running as the
   * safety net, relists after each stream failure, and is set to `fallbackRelistDuration` once the
   * stream failed `maxStreamRetries` times.
   */
  genericPleg: GenericPleg;
  /** The cache the generic PLEG fills too. */
  cache: PodStatusCache;
  /** Times the 5 s cache update and the event latency. */
  clock: Clock;
  /** Default: no-op. */
  logger?: Logger;
  /** kubelet_evented_pleg_connection_*, and the running pod and container gauges. Default: none. */
  metrics?: Metrics;
  /** Default 5 (upstream eventedPlegMaxStreamRetries). */
  maxStreamRetries?: number;
  /** Default 1 s and 3 min (upstream genericPlegRelistPeriod and genericPlegRelistThreshold). */
  fallbackRelistDuration?: RelistDuration;
}

/** The evented PLEG, with whether its events are still in use. */
export interface EventedPleg extends PodLifecycleEventGenerator {
  /** Upstream isEventedPLEGInUse: true while running, false once the stream failed beyond its retries. */
  readonly inUse: boolean;
}

const EVENT_TYPES: ReadonlySet<string> = new Set<ContainerEventType>([
  'CONTAINER_CREATED_EVENT',
  'CONTAINER_STARTED_EVENT',
  'CONTAINER_STOPPED_EVENT',
  'CONTAINER_DELETED_EVENT',
]);
const CONTAINER_STATES: ReadonlySet<string> = new Set(['created', 'running', 'exited', 'unknown']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isString = (value: unknown): value is string => typeof value === 'string';
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

function isSandboxStatus(value: unknown): value is RuntimeSandboxStatus {
  return (
    isRecord(value) &&
    isString(value['id']) &&
    (value['state'] === 'ready' || value['state'] === 'notready') &&
    isTime(value['createdAt']) &&
    isStringArray(value['additionalIps'])
  );
}

function isContainerStatus(value: unknown): value is RuntimeContainerStatus {
  return (
    isRecord(value) &&
    isString(value['id']) &&
    isString(value['name']) &&
    isString(value['state']) &&
    CONTAINER_STATES.has(value['state']) &&
    isTime(value['createdAt'])
  );
}

/** What is wrong with an event from the stream, if anything: the stream is the runtime's word, checked field by field. */
function eventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return 'not an object';
  if (!isString(event['type']) || !EVENT_TYPES.has(event['type'])) return `unknown event type ${JSON.stringify(event['type'])}`;
  if (!isString(event['containerId']) || event['containerId'] === '') return 'no containerId';
  if (!isTime(event['createdAt']) || event['createdAt'] === 0) return 'no createdAt';
  const status = event['podStatus'];
  // Upstream: the sandbox may be gone by the time the runtime builds the event; a relist will sync the pod.
  if (status === undefined || status === null) return 'no PodSandboxStatus or PodSandboxStatus.Metadata';
  if (!isRecord(status) || !isString(status['uid']) || status['uid'] === '') return 'no pod UID';
  if (!isString(status['name']) || !isString(status['namespace']) || !isStringArray(status['ips'])) return 'malformed pod status';
  if (!Array.isArray(status['sandboxes']) || !status['sandboxes'].every(isSandboxStatus)) return 'malformed sandbox status';
  if (!Array.isArray(status['containers']) || !status['containers'].every(isContainerStatus)) return 'malformed container status';
  return undefined;
}

const hasReadySandbox = (status: RuntimePodStatus): boolean => status.sandboxes.some((s) => s.state === 'ready');

/** How far a container (or sandbox) has come in a status: absent, created, running, exited (states only move forward). */
function progress(status: RuntimePodStatus, id: string): number {
  const container = status.containers.find((c) => c.id === id);
  if (container !== undefined) return container.state === 'exited' ? 3 : container.state === 'running' ? 2 : 1;
  const sandbox = status.sandboxes.find((s) => s.id === id);
  if (sandbox !== undefined) return sandbox.state === 'notready' ? 3 : 2;
  return 0;
}

function countByState(status: RuntimePodStatus): Map<string, number> {
  const counts = new Map<string, number>();
  for (const c of status.containers) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  return counts;
}

/**
 * Upstream EventedPLEG (pleg/evented.go): container changes come from the runtime's event stream,
 * each event's statuses go into the cache at the event's time, and the generic PLEG relists every
 * 300 s underneath. After `maxStreamRetries` failed streams (each followed by a relist) it falls back
 * for good: the generic PLEG relists every second again. Events it cannot read are logged and skipped.
 */
export function createEventedPleg(options: EventedPlegOptions): EventedPleg {
  const { source, genericPleg, cache, clock } = options;
  const logger = options.logger ?? noopLogger;
  const metrics = options.metrics ?? noopMetrics;
  const maxStreamRetries = options.maxStreamRetries ?? EVENTED_PLEG_MAX_STREAM_RETRIES;
  const fallbackRelistDuration = options.fallbackRelistDuration ?? GENERIC_PLEG_RELIST_DURATION;
  const listeners = new Set<(event: PodLifecycleEvent) => void>();
  const running = runningMetrics(metrics);
  const { lastSeen } = plegHealthMetrics(metrics);
  const connectionErrors = metrics.counter({
    name: 'kubelet_evented_pleg_connection_error_count',
    help: 'The number of errors encountered during the establishment of streaming connection with the CRI runtime.',
  });
  const connections = metrics.counter({
    name: 'kubelet_evented_pleg_connection_success_count',
    help: 'The number of times a streaming client was obtained to receive CRI Events.',
  });
  const latency = metrics.histogram({
    name: 'kubelet_evented_pleg_connection_latency_seconds',
    help: 'The latency of streaming connection with the CRI runtime, measured in seconds.',
  });
  let inUse = false;
  let started = false;
  let cacheTimer: TimerHandle | undefined;

  const emit = (event: PodLifecycleEvent): void => {
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        logger.error('PLEG event listener failed', { err: errorMessage(err), podUID: event.id });
      }
    }
  };

  // Upstream updateRunningPodMetric / updateRunningContainerMetric: the difference the event makes to the cached status.
  // (Upstream looks for the sandbox among the containers, so its pod count never moves; here a ready sandbox counts.)
  const updateRunningMetrics = (cached: RuntimePodStatus, status: RuntimePodStatus): void => {
    const podDelta = Number(hasReadySandbox(status)) - Number(hasReadySandbox(cached));
    if (podDelta > 0) running.pods.inc(podDelta);
    else if (podDelta < 0) running.pods.dec(-podDelta);
    const before = countByState(cached);
    const after = countByState(status);
    for (const state of new Set([...before.keys(), ...after.keys()])) {
      const delta = (after.get(state) ?? 0) - (before.get(state) ?? 0);
      if (delta > 0) running.containers.inc({ container_state: state }, delta);
      else if (delta < 0) running.containers.dec({ container_state: state }, -delta);
    }
  };

  // Upstream getPodIPs: a pod torn down keeps the IPs it had, which the API expects of a completed pod.
  const podIPs = (status: RuntimePodStatus): string[] => {
    if (status.ips.length > 0) return status.ips;
    const old = cache.get(status.uid);
    if (old.error !== undefined || old.status.ips.length === 0 || hasReadySandbox(status)) return status.ips;
    return old.status.ips;
  };

  // Upstream processCRIEvents and processCRIEvent.
  const handleEvent = (raw: RuntimeContainerEvent): void => {
    const problem = eventProblem(raw);
    if (problem !== undefined) {
      const fields = isRecord(raw) ? { containerID: raw['containerId'], type: raw['type'] } : {};
      logger.error('Evented PLEG: ignoring a container event', { reason: problem, ...fields });
      return;
    }
    const { containerId, type, createdAt } = raw;
    const received = raw.podStatus as RuntimePodStatus;
    const uid = received.uid;
    const status: RuntimePodStatus = { ...received, ips: podIPs(received) };
    const cached = cache.get(uid);
    latency.observe(Math.max(0, clock.now() - createdAt) / 1000);
    logger.debug('Evented PLEG: Generated pod status from the received event', { podUID: uid, containerID: containerId, type });

    let send = false;
    if (type === 'CONTAINER_DELETED_EVENT') {
      // The runtime removed the sandbox: so does the cache.
      if (status.sandboxes.some((s) => s.id === containerId)) cache.delete(uid);
      updateRunningMetrics(cached.status, status);
      send = true;
    } else if (cached.modifiedAt <= createdAt) {
      // Upstream cache.Set with EventedPLEG: never over a status newer than the event.
      updateRunningMetrics(cached.status, status);
      cache.set(uid, status, undefined, createdAt);
      send = true;
    }
    if (!send) {
      // kubelet-ts: the lifecycle's own read after a start is stamped when it returned, so it can look newer than an
      // exit the runtime reported meanwhile. A refused event that shows its container further along than the cache
      // does has the generic PLEG relist now rather than at its 300 s period.
      if (progress(received, containerId) > progress(cached.status, containerId)) {
        genericPleg.relist().catch((err: unknown) => logger.error('Evented PLEG: relist failed', { err: errorMessage(err) }));
      }
      return;
    }
    switch (type) {
      case 'CONTAINER_STARTED_EVENT':
        emit({ id: uid, type: 'ContainerStarted', data: containerId });
        break;
      case 'CONTAINER_STOPPED_EVENT':
        emit({ id: uid, type: 'ContainerDied', data: containerId });
        break;
      case 'CONTAINER_DELETED_EVENT':
        // As the generic PLEG reports a container gone without being seen exited.
        emit({ id: uid, type: 'ContainerDied', data: containerId });
        emit({ id: uid, type: 'ContainerRemoved', data: containerId });
        break;
      case 'CONTAINER_CREATED_EVENT':
        // The status is cached; a creation is no PLEG event (the generic PLEG ignores it too).
        break;
    }
  };

  const fallBack = (): void => {
    inUse = false;
    if (cacheTimer !== undefined) clock.clearInterval(cacheTimer);
    cacheTimer = undefined;
    logger.info('Fall back to Generic PLEG relisting since Evented PLEG is not working', {
      relistPeriod: fallbackRelistDuration.relistPeriodMs / 1000,
    });
    genericPleg.update(fallbackRelistDuration);
  };

  // Upstream watchEventsChannel: the attempts are not reset by a stream that worked for a while.
  const watchEvents = async (signal: AbortSignal): Promise<void> => {
    let attempts = 0;
    while (!signal.aborted) {
      if (attempts >= maxStreamRetries) {
        fallBack();
        return;
      }
      try {
        const events = source.getContainerEvents(signal);
        connections.inc();
        for await (const event of events) {
          try {
            handleEvent(event);
          } catch (err) {
            logger.error('Evented PLEG: failed to handle a container event', { err: errorMessage(err) });
          }
        }
        if (signal.aborted) return;
        throw new PodLifecycleError('SYNC_FAILED', 'container events stream is closed');
      } catch (err) {
        if (signal.aborted) return;
        connectionErrors.inc();
        attempts++;
        logger.info('Evented PLEG: Failed to get container events, retrying', { err: errorMessage(err), attempt: attempts });
        // Upstream: a relist at once, for the latest containers (and the running pod and container metrics).
        await genericPleg.relist();
      }
    }
  };

  const healthy = (): HealthCheckResult => {
    // Upstream's PLEG check is the generic PLEG's (its threshold 10 min while events are in use, 3 min after the
    // fall-back); its EventedPLEG check fails only when its event channel is full, and events here go to the
    // listeners as they come, through no channel.
    const result = genericPleg.healthy();
    // Upstream's EventedPLEG check runs after the generic one and sets the last-seen time to now.
    lastSeen.set(Math.floor(clock.now() / 1000));
    return result;
  };

  return {
    async run(signal) {
      if (started) throw new PodLifecycleError('SYNC_FAILED', 'the evented PLEG is already running');
      started = true;
      inUse = true;
      cacheTimer = clock.setInterval(() => cache.updateTime(clock.now()), GLOBAL_CACHE_UPDATE_PERIOD_MS);
      const relisting = genericPleg.run(signal);
      try {
        await watchEvents(signal);
      } finally {
        if (cacheTimer !== undefined) clock.clearInterval(cacheTimer);
        cacheTimer = undefined;
        if (signal.aborted) inUse = false;
      }
      await relisting;
    },
    watch(listener) {
      listeners.add(listener);
      const unwatchGeneric = genericPleg.watch(listener);
      return () => {
        listeners.delete(listener);
        unwatchGeneric();
      };
    },
    healthy,
    healthChecker: toHealthChecker('pleg', healthy),
    relist: () => genericPleg.relist(),
    get inUse() {
      return inUse;
    },
  };
}
