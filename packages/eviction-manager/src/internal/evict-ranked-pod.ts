import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { PodStats } from '@kubelet-ts/stats';
import { IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, SIGNAL_TO_RESOURCE, TERMINATION_BY_KUBELET_REASON } from '../constants.js';
import { evictionMessage } from '../messages.js';
import { rankFuncFor } from '../ranking.js';
import type { PodStatsFn } from '../ranking.js';
import type { SignalObservations } from '../signals.js';
import { isHardThreshold } from '../thresholds.js';
import type { EvictionThreshold } from '../thresholds.js';
import type { EvictionPodCondition } from '../types.js';
import type { EvictionContext } from './context.js';
import { podKey } from './context.js';
import { evictPod } from './evict-pod.js';

/** The pressure a pod is evicted for. */
export interface Starvation {
  /** The threshold whose resource is reclaimed. */
  threshold: EvictionThreshold;
  /** Every threshold met (the message quotes the first of the resource). */
  met: readonly EvictionThreshold[];
  observations: SignalObservations;
  dedicatedImageFs: boolean;
}

/** Upstream's grace period for an eviction: none for a hard threshold; the pod's own, capped, for a soft one. */
function evictionGracePeriod(ctx: EvictionContext, pod: Pod, threshold: EvictionThreshold): number {
  if (isHardThreshold(threshold)) return IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS;
  const own = pod.spec.terminationGracePeriodSeconds;
  return own !== undefined ? Math.min(ctx.maxPodGraceSeconds, own) : ctx.maxPodGraceSeconds;
}

/**
 * The end of upstream synchronize: ranks the active pods for the starved resource (with fresh stats
 * of every pod) and evicts the first that is not critical. At most one pod per pass.
 */
export async function evictRankedPod(
  ctx: EvictionContext,
  activePods: readonly Pod[],
  starvation: Starvation,
  abort: AbortSignal | undefined,
): Promise<Pod[]> {
  const { logger } = ctx;
  const { threshold, met, observations, dedicatedImageFs } = starvation;
  if (activePods.length === 0) {
    logger.error('Eviction manager: eviction thresholds have been met, but no pods are active to evict');
    return [];
  }
  let byUID: Map<string, PodStats>;
  try {
    const everyPod = await ctx.summaryProvider.get({ updateStats: true, ...(abort !== undefined ? { signal: abort } : {}) });
    byUID = new Map<string, PodStats>(everyPod.pods.map((p) => [p.podRef.uid, p]));
  } catch (err) {
    logger.error('Eviction manager: failed to get pod stats for ranking', { err: errorMessage(err) });
    return [];
  }
  const stats: PodStatsFn = (pod) => byUID.get(pod.metadata.uid);
  const ranked = [...activePods];
  rankFuncFor(threshold.signal, dedicatedImageFs)(ranked, stats);
  logger.info('Eviction manager: pods ranked for eviction', { pods: ranked.map(podKey) });
  // Upstream: the age of the stats behind every met threshold, once the pods are ranked (a signal without a time is skipped).
  for (const t of met) {
    const observedAt = Date.parse(observations[t.signal]?.time ?? '');
    if (!Number.isNaN(observedAt)) ctx.statsAge.observe({ eviction_signal: t.signal }, (ctx.clock.now() - observedAt) / 1000);
  }
  const resource = SIGNAL_TO_RESOURCE[threshold.signal];
  for (const pod of ranked) {
    const message = evictionMessage(resource, pod, stats, met, observations);
    const condition: EvictionPodCondition = { type: 'DisruptionTarget', status: 'True', reason: TERMINATION_BY_KUBELET_REASON, message };
    if (await evictPod(ctx, pod, { gracePeriodSeconds: evictionGracePeriod(ctx, pod, threshold), message, condition })) {
      ctx.evictions.inc({ eviction_signal: threshold.signal });
      return [pod];
    }
  }
  logger.info('Eviction manager: unable to evict any pods from the node');
  return [];
}
