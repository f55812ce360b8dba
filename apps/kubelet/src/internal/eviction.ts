import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs, effectiveEvictionHard } from '@kubelet-ts/config';
import type { EvictionConfig, EvictionManager } from '@kubelet-ts/eviction-manager';
import { DEFAULT_MONITORING_INTERVAL_MS, createEvictionManager } from '@kubelet-ts/eviction-manager';
import type { PodAdmitHandler, PodLifecycle } from '@kubelet-ts/pod-lifecycle';
import type { ContainerRuntime } from '@kubelet-ts/container-runtime';
import type { SummaryProvider } from '@kubelet-ts/stats';

type EvictionSettings = Pick<
  KubeletConfiguration,
  | 'evictionHard'
  | 'evictionSoft'
  | 'evictionSoftGracePeriod'
  | 'evictionMinimumReclaim'
  | 'evictionPressureTransitionPeriod'
  | 'evictionMaxPodGracePeriod'
  | 'mergeDefaultEvictionSettings'
>;

/** The library's config from the KubeletConfiguration: evictionHard merged with the defaults when asked, durations in ms. */
export function evictionConfigFrom(config: EvictionSettings): EvictionConfig {
  const grace: Record<string, number> = {};
  for (const [signal, value] of Object.entries(config.evictionSoftGracePeriod ?? {})) grace[signal] = durationMs(value);
  return {
    evictionHard: effectiveEvictionHard(config),
    evictionSoft: { ...config.evictionSoft },
    evictionSoftGracePeriodMs: grace,
    evictionMinimumReclaim: { ...config.evictionMinimumReclaim },
    ...(config.evictionPressureTransitionPeriod !== undefined
      ? { evictionPressureTransitionPeriodMs: durationMs(config.evictionPressureTransitionPeriod) }
      : {}),
    ...(config.evictionMaxPodGracePeriod !== undefined ? { evictionMaxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod } : {}),
  };
}

/** The eviction monitoring interval: `evictionMonitoringPeriod` (kubelet-ts), else upstream's 10 s. */
export function evictionMonitoringIntervalMs(config: Pick<KubeletConfiguration, 'evictionMonitoringPeriod'>): number {
  return config.evictionMonitoringPeriod !== undefined ? durationMs(config.evictionMonitoringPeriod) : DEFAULT_MONITORING_INTERVAL_MS;
}

export interface KubeletEvictionOptions {
  config: EvictionSettings;
  /** --evict-static-pods (kubelet-ts extension). */
  evictStaticPods: boolean;
  summaryProvider: Pick<SummaryProvider, 'get'>;
  lifecycle: Pick<PodLifecycle, 'getActivePods' | 'evictPod' | 'podResourcesAreReclaimed' | 'getPods' | 'sourcesReady'>;
  /** Container GC of the runtime: under disk pressure every dead container goes (upstream DeleteAllUnusedContainers). */
  runtime: Pick<ContainerRuntime, 'garbageCollect'>;
  /** Image GC's deleteUnusedImages. */
  reclaimImages?: () => Promise<unknown>;
  monitoringIntervalMs?: number | undefined;
  clock: Clock;
  logger: Logger;
  /** kubelet_evictions. */
  metrics?: Metrics;
}

/**
 * The eviction manager as the kubelet runs it: stats from the summary provider, pods and kills
 * through the pod lifecycle, node-level reclaim through container GC and image GC. The wiring adds
 * `evictionAdmitHandler(manager)` to the lifecycle's admission.
 */
export function createKubeletEvictionManager(options: KubeletEvictionOptions): EvictionManager {
  const { lifecycle } = options;
  const manager = createEvictionManager({
    summaryProvider: options.summaryProvider,
    getActivePods: () => lifecycle.getActivePods(),
    killPod: (pod, request) => lifecycle.evictPod(pod.metadata.uid, request),
    podCleanedUp: (pod) => lifecycle.podResourcesAreReclaimed(pod.metadata.uid),
    // Every dead container of every pod; sandboxes and log directories only of pods that are gone.
    deleteDeadContainers: () => {
      const desired = new Set(lifecycle.getPods().map((p) => p.metadata.uid));
      return options.runtime.garbageCollect(
        { minAgeMs: 0, maxPerPodContainer: 0, maxContainers: 0 },
        lifecycle.sourcesReady,
        (uid) => !desired.has(uid) && lifecycle.podResourcesAreReclaimed(uid),
      );
    },
    ...(options.reclaimImages !== undefined ? { reclaimImages: options.reclaimImages } : {}),
    config: evictionConfigFrom(options.config),
    evictStaticPods: options.evictStaticPods,
    ...(options.monitoringIntervalMs !== undefined ? { monitoringIntervalMs: options.monitoringIntervalMs } : {}),
    clock: options.clock,
    logger: options.logger,
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
  });
  return manager;
}

/** The eviction manager as an admit handler (upstream AddPodAdmitHandler(evictionAdmitHandler)): new pods refused under pressure. */
export function evictionAdmitHandler(manager: Pick<EvictionManager, 'admit'>): PodAdmitHandler {
  return { admit: ({ pod }) => manager.admit(pod) };
}
