import type { Pod } from '@kubelet-ts/api';
import type { Clock, Counter, Histogram, Logger } from '@kubelet-ts/common';
import { DEFAULT_BUCKETS, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { SummaryProvider } from '@kubelet-ts/stats';
import { DEFAULT_MONITORING_INTERVAL_MS, DEFAULT_POD_CLEANUP_TIMEOUT_MS, DEFAULT_PRESSURE_TRANSITION_PERIOD_MS } from '../constants.js';
import type { CriticalPodOptions } from '../critical.js';
import { parseThresholdConfig } from '../thresholds.js';
import type { EvictionThreshold } from '../thresholds.js';
import type { EvictionManagerOptions, KillPodFn, NodeReclaimFn } from '../types.js';

/**
 * What every piece of the eviction manager works with (upstream: the fields of managerImpl), built
 * once by createEvictionManager from its options.
 */
export interface EvictionContext {
  readonly summaryProvider: Pick<SummaryProvider, 'get'>;
  readonly getActivePods: () => Pod[];
  readonly killPod: KillPodFn;
  readonly podCleanedUp: (pod: Pod) => boolean;
  /** Container GC, then image GC: the node-level reclaims that exist, in the order they run. */
  readonly nodeReclaims: readonly NodeReclaimFn[];
  readonly thresholds: readonly EvictionThreshold[];
  readonly transitionPeriodMs: number;
  readonly maxPodGraceSeconds: number;
  readonly monitoringIntervalMs: number;
  readonly podCleanupTimeoutMs: number;
  /** Upstream LocalStorageCapacityIsolation. */
  readonly localStorage: boolean;
  readonly critical: CriticalPodOptions;
  /** Whether imagefs is a separate filesystem; undefined: decided per summary. */
  readonly dedicatedImageFs: boolean | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Upstream kubelet_evictions: pods evicted, by the signal that made the manager evict them. */
  readonly evictions: Counter<'eviction_signal'>;
  /** Upstream kubelet_eviction_stats_age_seconds: how old the stats were that each met threshold was judged on. */
  readonly statsAge: Histogram<'eviction_signal'>;
}

export function createEvictionContext(options: EvictionManagerOptions): EvictionContext {
  const config = options.config ?? {};
  const metrics = options.metrics ?? noopMetrics;
  return {
    summaryProvider: options.summaryProvider,
    getActivePods: options.getActivePods,
    killPod: options.killPod,
    podCleanedUp: options.podCleanedUp ?? ((): boolean => true),
    nodeReclaims: [options.deleteDeadContainers, options.reclaimImages].filter((f): f is NodeReclaimFn => f !== undefined),
    thresholds: parseThresholdConfig(config),
    transitionPeriodMs: config.evictionPressureTransitionPeriodMs ?? DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
    maxPodGraceSeconds: config.evictionMaxPodGracePeriodSeconds ?? 0,
    monitoringIntervalMs: options.monitoringIntervalMs ?? DEFAULT_MONITORING_INTERVAL_MS,
    podCleanupTimeoutMs: options.podCleanupTimeoutMs ?? DEFAULT_POD_CLEANUP_TIMEOUT_MS,
    localStorage: options.localStorageCapacityIsolation ?? true,
    critical: { evictStaticPods: options.evictStaticPods === true },
    dedicatedImageFs: options.dedicatedImageFs,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? noopLogger,
    evictions: metrics.counter<'eviction_signal'>({
      name: 'kubelet_evictions',
      help: 'Cumulative number of pod evictions by eviction signal',
      labelNames: ['eviction_signal'],
    }),
    statsAge: metrics.histogram<'eviction_signal'>({
      name: 'kubelet_eviction_stats_age_seconds',
      help: 'Time between when stats are collected, and when pod is evicted based on those stats by eviction signal',
      labelNames: ['eviction_signal'],
      buckets: DEFAULT_BUCKETS,
    }),
  };
}

/** The `pod` log key. */
export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

/** A summary request for the node alone. */
export const NO_PODS: ReadonlySet<string> = new Set();
