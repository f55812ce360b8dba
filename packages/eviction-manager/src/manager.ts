import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { PodStats, Summary, SummaryProvider } from '@kubelet-ts/stats';
import { admitUnderPressure } from './admission.js';
import type { PodAdmitResult } from './admission.js';
import type { EvictionSignal, PressureConditionType } from './constants.js';
import {
  DEFAULT_MONITORING_INTERVAL_MS,
  DEFAULT_POD_CLEANUP_TIMEOUT_MS,
  DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
  EVICTED_REASON,
  IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
  NodeConditionType,
  POD_CLEANUP_POLL_MS,
  SIGNAL_TO_NODE_CONDITION,
  SIGNAL_TO_RESOURCE,
  TERMINATION_BY_KUBELET_REASON,
} from './constants.js';
import { isCriticalPod } from './critical.js';
import { hasLocalStorageLimits, localStorageViolation } from './local-storage.js';
import { evictionMessage } from './messages.js';
import { NODE_CONDITION_TEXT } from './node-conditions.js';
import type { NodeCondition } from './node-conditions.js';
import { rankFuncFor } from './ranking.js';
import type { PodStatsFn } from './ranking.js';
import { makeSignalObservations, thresholdsMet } from './signals.js';
import type { SignalObservations } from './signals.js';
import { isHardThreshold, parseThresholdConfig, sameThreshold } from './thresholds.js';
import type { EvictionConfig, EvictionThreshold } from './thresholds.js';

/** The pod condition an evicted pod gets (upstream DisruptionTarget / TerminationByKubelet). */
export interface EvictionPodCondition {
  type: 'DisruptionTarget';
  status: 'True';
  reason: string;
  message: string;
}

/** What the kubelet does to evict a pod: kill it with this grace period and keep this terminal status. */
export interface KillPodRequest {
  gracePeriodSeconds: number;
  /** Always `Evicted`. */
  reason: string;
  message: string;
  condition?: EvictionPodCondition;
}

/**
 * Upstream KillPodFunc (killPodNow): kills the pod and resolves once its containers are stopped;
 * the pod then stays Failed with the given reason and message.
 */
export type KillPodFn = (pod: Pod, request: KillPodRequest) => Promise<void>;

/** A node-level reclaim (delete unused images, dead containers); its result is ignored, the next summary tells. */
export type NodeReclaimFn = (signal?: AbortSignal) => Promise<unknown>;

export interface EvictionManagerOptions {
  summaryProvider: Pick<SummaryProvider, 'get'>;
  /** Pods that are running or may still run (upstream GetActivePods). */
  getActivePods: () => Pod[];
  killPod: KillPodFn;
  /** True once an evicted pod's containers, volumes and cgroup are gone (upstream podResourcesAreReclaimed). Default: always true. */
  podCleanedUp?: (pod: Pod) => boolean;
  /** Deletes unused images (image GC). */
  reclaimImages?: NodeReclaimFn;
  /** Deletes every dead container and sandbox (container GC). */
  deleteDeadContainers?: NodeReclaimFn;
  config?: EvictionConfig;
  /** kubelet-ts extension: static pods that are not critical by priority may be evicted (and refused). */
  evictStaticPods?: boolean;
  /** Whether imagefs is a separate filesystem. Default: decided per summary (capacities differ). */
  dedicatedImageFs?: boolean;
  /** Enforce emptyDir sizeLimit and ephemeral-storage limits (upstream LocalStorageCapacityIsolation, default on). */
  localStorageCapacityIsolation?: boolean;
  /** How often `run` synchronizes. Default 10 s (upstream monitoringInterval). */
  monitoringIntervalMs?: number;
  /** How long `run` waits for evicted pods to be cleaned up. Default 30 s. */
  podCleanupTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

export type ConditionChangeListener = (conditions: readonly PressureConditionType[]) => void;

/** Upstream eviction.Manager plus the node conditions it feeds (upstream nodestatus setters). */
export interface EvictionManager {
  /** Synchronizes every monitoring interval until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** One pass (upstream synchronize): observe, update conditions, reclaim or evict. Resolves with the pods evicted. */
  synchronize(signal?: AbortSignal): Promise<Pod[]>;
  /** Admission (upstream PodAdmitHandler): refuses pods the node cannot take under pressure. */
  admit(pod: Pod): PodAdmitResult;
  /** The pressure conditions now in effect. */
  pressureConditions(): PressureConditionType[];
  isUnderMemoryPressure(): boolean;
  isUnderDiskPressure(): boolean;
  isUnderPIDPressure(): boolean;
  /** MemoryPressure, DiskPressure and PIDPressure as v1 NodeConditions. */
  nodeConditions(): NodeCondition[];
  onConditionChange(listener: ConditionChangeListener): () => void;
  /** The configured thresholds. */
  readonly thresholds: readonly EvictionThreshold[];
}

/** A summary of the node alone. */
const NO_PODS: ReadonlySet<string> = new Set();

const CONDITION_ORDER: readonly PressureConditionType[] = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Upstream byEvictionPriority: memory first (the other signals all have a resource to reclaim). */
function isMemorySignal(signal: EvictionSignal): boolean {
  return signal === 'memory.available' || signal === 'allocatableMemory.available';
}

export function createEvictionManager(options: EvictionManagerOptions): EvictionManager {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const config = options.config ?? {};
  const thresholds = parseThresholdConfig(config);
  const transitionPeriodMs = config.evictionPressureTransitionPeriodMs ?? DEFAULT_PRESSURE_TRANSITION_PERIOD_MS;
  const maxPodGraceSeconds = config.evictionMaxPodGracePeriodSeconds ?? 0;
  const monitoringIntervalMs = options.monitoringIntervalMs ?? DEFAULT_MONITORING_INTERVAL_MS;
  const cleanupTimeoutMs = options.podCleanupTimeoutMs ?? DEFAULT_POD_CLEANUP_TIMEOUT_MS;
  const localStorage = options.localStorageCapacityIsolation ?? true;
  const criticalOptions = { evictStaticPods: options.evictStaticPods === true };
  const podCleanedUp = options.podCleanedUp ?? ((): boolean => true);

  let conditions: PressureConditionType[] = [];
  let thresholdsMetNow: EvictionThreshold[] = [];
  let firstObservedAt: Array<{ threshold: EvictionThreshold; at: number }> = [];
  const conditionLastObservedAt = new Map<PressureConditionType, number>();
  const transitionAt = new Map<PressureConditionType, number>(CONDITION_ORDER.map((c) => [c, clock.now()]));
  let heartbeat = clock.now();
  const listeners = new Set<ConditionChangeListener>();

  const dedicatedImageFs = (summary: Summary): boolean => {
    if (options.dedicatedImageFs !== undefined) return options.dedicatedImageFs;
    const nodefs = summary.node.fs?.capacityBytes;
    const imagefs = summary.node.runtime?.imageFs?.capacityBytes;
    return nodefs !== undefined && imagefs !== undefined && nodefs !== imagefs;
  };

  const reclaimFuncs = (signal: EvictionSignal, dedicated: boolean): NodeReclaimFn[] => {
    const funcs = [options.deleteDeadContainers, options.reclaimImages].filter((f): f is NodeReclaimFn => f !== undefined);
    switch (signal) {
      case 'nodefs.available':
      case 'nodefs.inodesFree':
        // With a dedicated imagefs, images and writable layers are not on nodefs: nothing to reclaim there.
        return dedicated ? [] : funcs;
      case 'imagefs.available':
      case 'imagefs.inodesFree':
      case 'containerfs.available':
      case 'containerfs.inodesFree':
        return funcs;
      default:
        return [];
    }
  };

  const setConditions = (next: PressureConditionType[], now: number): void => {
    const sorted = CONDITION_ORDER.filter((c) => next.includes(c));
    const before = new Set(conditions);
    const changed = sorted.length !== conditions.length || sorted.some((c) => !before.has(c));
    heartbeat = now;
    if (!changed) return;
    for (const type of CONDITION_ORDER) {
      const was = before.has(type);
      const is = sorted.includes(type);
      if (was === is) continue;
      transitionAt.set(type, now);
      const text = NODE_CONDITION_TEXT[type][is ? 'true' : 'false'];
      logger.info('Node condition changed', { condition: type, status: is ? 'True' : 'False', reason: text.reason });
    }
    conditions = sorted;
    for (const listener of listeners) {
      try {
        listener([...sorted]);
      } catch (err) {
        logger.error('Node condition listener failed', { err: errorMessage(err) });
      }
    }
  };

  const evictPod = async (pod: Pod, gracePeriodSeconds: number, message: string, condition: EvictionPodCondition | undefined): Promise<boolean> => {
    // Upstream: critical pods (static ones included: they are not re-admitted after an eviction) are never evicted.
    if (isCriticalPod(pod, criticalOptions)) {
      logger.error('Eviction manager: cannot evict a critical pod', { pod: podKey(pod), podUID: pod.metadata.uid });
      return false;
    }
    logger.info('Evicting pod', { pod: podKey(pod), podUID: pod.metadata.uid, message, gracePeriod: gracePeriodSeconds });
    try {
      await options.killPod(pod, { gracePeriodSeconds, reason: EVICTED_REASON, message, ...(condition !== undefined ? { condition } : {}) });
      logger.info('Eviction manager: pod is evicted successfully', { pod: podKey(pod), podUID: pod.metadata.uid });
    } catch (err) {
      logger.error('Eviction manager: pod failed to evict', { pod: podKey(pod), podUID: pod.metadata.uid, err: errorMessage(err) });
    }
    return true;
  };

  // Upstream localStorageEviction: emptyDir sizeLimit, then the pod's, then each container's ephemeral-storage limit.
  const localStorageEviction = async (pods: Pod[], stats: PodStatsFn, dedicated: boolean): Promise<Pod[]> => {
    const evicted: Pod[] = [];
    for (const pod of pods) {
      const podStats = stats(pod);
      if (podStats === undefined) continue;
      const message = localStorageViolation(pod, podStats, dedicated);
      if (message !== undefined && (await evictPod(pod, 0, message, undefined))) evicted.push(pod);
    }
    return evicted;
  };

  const reclaimNodeLevel = async (signal: EvictionSignal, dedicated: boolean, abort: AbortSignal | undefined): Promise<boolean> => {
    const funcs = reclaimFuncs(signal, dedicated);
    if (funcs.length === 0) return false;
    for (const fn of funcs) {
      try {
        await fn(abort);
      } catch (err) {
        logger.info('Eviction manager: unexpected error when attempting to reduce resource pressure', { resourceName: SIGNAL_TO_RESOURCE[signal], err: errorMessage(err) });
      }
    }
    let summary: Summary;
    try {
      summary = await options.summaryProvider.get({ updateStats: true, podUIDs: NO_PODS, ...(abort !== undefined ? { signal: abort } : {}) });
    } catch (err) {
      logger.error('Eviction manager: failed to get summary stats after resource reclaim', { err: errorMessage(err) });
      return false;
    }
    // Every threshold, ignoring grace periods, with minimum reclaim: is the pressure gone?
    if (thresholdsMet(thresholds, makeSignalObservations(summary), true).length === 0) {
      logger.info('Eviction manager: able to reduce resource pressure without evicting pods.', { resourceName: SIGNAL_TO_RESOURCE[signal] });
      return true;
    }
    return false;
  };

  const synchronize = async (abort?: AbortSignal): Promise<Pod[]> => {
    const activePods = options.getActivePods();
    // The signals are node figures; pod figures are needed only for pods with local-storage limits, and
    // for every pod once pods must be ranked (fetched then). As upstream, but without measuring ~110 pods
    // every 10 s for nothing.
    const limited = localStorage ? new Set(activePods.filter(hasLocalStorageLimits).map((p) => p.metadata.uid)) : NO_PODS;
    let summary: Summary;
    try {
      summary = await options.summaryProvider.get({ updateStats: true, podUIDs: limited, ...(abort !== undefined ? { signal: abort } : {}) });
    } catch (err) {
      logger.error('Eviction manager: failed to get summary stats', { err: errorMessage(err) });
      return [];
    }
    const now = clock.now();
    const observations: SignalObservations = makeSignalObservations(summary);
    const dedicated = dedicatedImageFs(summary);

    // Thresholds met now, plus those met last time that have not reclaimed their minimum yet.
    let met = thresholdsMet(thresholds, observations, false);
    if (thresholdsMetNow.length > 0) {
      const unresolved = thresholdsMet(thresholdsMetNow, observations, true);
      for (const t of unresolved) if (!met.some((m) => sameThreshold(m, t))) met.push(t);
    }
    firstObservedAt = met.map((threshold) => ({ threshold, at: firstObservedAt.find((f) => sameThreshold(f.threshold, threshold))?.at ?? now }));
    // A condition stays until it has not been observed for the transition period (no flapping).
    for (const t of met) conditionLastObservedAt.set(SIGNAL_TO_NODE_CONDITION[t.signal], now);
    const active = CONDITION_ORDER.filter((c) => {
      const at = conditionLastObservedAt.get(c);
      return at !== undefined && now - at < transitionPeriodMs;
    });
    met = firstObservedAt.filter((f) => now - f.at >= f.threshold.gracePeriodMs).map((f) => f.threshold);
    setConditions(active, now);
    thresholdsMetNow = met;

    let byUID = new Map<string, PodStats>(summary.pods.map((p) => [p.podRef.uid, p]));
    const stats: PodStatsFn = (pod) => byUID.get(pod.metadata.uid);

    if (localStorage) {
      const evicted = await localStorageEviction(activePods, stats, dedicated);
      if (evicted.length > 0) return evicted;
    }
    if (met.length === 0) {
      logger.debug('Eviction manager: no resources are starved');
      return [];
    }
    const ordered = [...met].sort((a, b) => Number(isMemorySignal(b.signal)) - Number(isMemorySignal(a.signal)));
    const toReclaim = ordered[0] as EvictionThreshold;
    const resource = SIGNAL_TO_RESOURCE[toReclaim.signal];
    logger.info('Eviction manager: attempting to reclaim', { resourceName: resource, signal: toReclaim.signal });
    if (await reclaimNodeLevel(toReclaim.signal, dedicated, abort)) return [];

    if (activePods.length === 0) {
      logger.error('Eviction manager: eviction thresholds have been met, but no pods are active to evict');
      return [];
    }
    try {
      const everyPod = await options.summaryProvider.get({ updateStats: true, ...(abort !== undefined ? { signal: abort } : {}) });
      byUID = new Map<string, PodStats>(everyPod.pods.map((p) => [p.podRef.uid, p]));
    } catch (err) {
      logger.error('Eviction manager: failed to get pod stats for ranking', { err: errorMessage(err) });
      return [];
    }
    const ranked = [...activePods];
    rankFuncFor(toReclaim.signal, dedicated)(ranked, stats);
    logger.info('Eviction manager: pods ranked for eviction', { pods: ranked.map(podKey) });
    for (const pod of ranked) {
      let grace = IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS;
      if (!isHardThreshold(toReclaim)) {
        // Soft eviction: the pod's own grace period, capped by evictionMaxPodGracePeriod.
        const own = pod.spec.terminationGracePeriodSeconds;
        grace = own !== undefined ? Math.min(maxPodGraceSeconds, own) : maxPodGraceSeconds;
      }
      const message = evictionMessage(resource, pod, stats, met, observations);
      const condition: EvictionPodCondition = { type: 'DisruptionTarget', status: 'True', reason: TERMINATION_BY_KUBELET_REASON, message };
      if (await evictPod(pod, grace, message, condition)) return [pod];
    }
    logger.info('Eviction manager: unable to evict any pods from the node');
    return [];
  };

  const waitForPodsCleanup = async (pods: Pod[], abort: AbortSignal): Promise<void> => {
    const deadline = clock.now() + cleanupTimeoutMs;
    while (clock.now() < deadline) {
      if (pods.every((p) => podCleanedUp(p))) {
        logger.info('Eviction manager: pods successfully cleaned up', { pods: pods.map(podKey) });
        return;
      }
      await clock.sleep(POD_CLEANUP_POLL_MS, abort);
    }
    logger.warn('Eviction manager: timed out waiting for pods to be cleaned up', { pods: pods.map(podKey) });
  };

  return {
    async run(signal) {
      logger.info('Eviction manager: starting control loop', { monitoringInterval: `${monitoringIntervalMs}ms`, thresholds: thresholds.map((t) => t.signal) });
      while (!signal.aborted) {
        try {
          const evicted = await synchronize(signal);
          if (evicted.length > 0) await waitForPodsCleanup(evicted, signal);
          else await clock.sleep(monitoringIntervalMs, signal);
        } catch (err) {
          if (signal.aborted) break;
          logger.error('Eviction manager: synchronize failed', { err: errorMessage(err) });
          await clock.sleep(monitoringIntervalMs, signal).catch(() => undefined);
        }
      }
    },
    synchronize,
    admit(pod) {
      const result = admitUnderPressure(pod, conditions, criticalOptions);
      if (!result.admit) logger.info('Failed to admit pod to node', { pod: podKey(pod), nodeCondition: conditions });
      return result;
    },
    pressureConditions: () => [...conditions],
    isUnderMemoryPressure: () => conditions.includes(NodeConditionType.MemoryPressure),
    isUnderDiskPressure: () => conditions.includes(NodeConditionType.DiskPressure),
    isUnderPIDPressure: () => conditions.includes(NodeConditionType.PIDPressure),
    nodeConditions() {
      return CONDITION_ORDER.map((type) => {
        const is = conditions.includes(type);
        const text = NODE_CONDITION_TEXT[type][is ? 'true' : 'false'];
        return {
          type,
          status: is ? 'True' : 'False',
          lastHeartbeatTime: rfc3339(heartbeat),
          lastTransitionTime: rfc3339(transitionAt.get(type) ?? heartbeat),
          reason: text.reason,
          message: text.message,
        };
      });
    },
    onConditionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    thresholds,
  };
}
