import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { EVICTED_REASON } from '../constants.js';
import { isCriticalPod } from '../critical.js';
import type { EvictionPodCondition } from '../types.js';
import type { EvictionContext } from './context.js';
import { podKey } from './context.js';

/** How one pod is evicted: the kill's grace period, and the message (and condition) its status keeps. */
export interface EvictPodRequest {
  gracePeriodSeconds: number;
  message: string;
  condition?: EvictionPodCondition | undefined;
}

/**
 * Upstream evictPod: kills the pod unless it is critical. True when a kill was attempted (a failed
 * kill counts: the pass is done either way), false for a critical pod.
 */
export async function evictPod(ctx: EvictionContext, pod: Pod, request: EvictPodRequest): Promise<boolean> {
  const { logger } = ctx;
  const { gracePeriodSeconds, message, condition } = request;
  // Upstream: critical pods (static ones included: they are not re-admitted after an eviction) are never evicted.
  if (isCriticalPod(pod, ctx.critical)) {
    logger.error('Eviction manager: cannot evict a critical pod', { pod: podKey(pod), podUID: pod.metadata.uid });
    return false;
  }
  logger.info('Evicting pod', { pod: podKey(pod), podUID: pod.metadata.uid, message, gracePeriod: gracePeriodSeconds });
  try {
    await ctx.killPod(pod, { gracePeriodSeconds, reason: EVICTED_REASON, message, ...(condition !== undefined ? { condition } : {}) });
    logger.info('Eviction manager: pod is evicted successfully', { pod: podKey(pod), podUID: pod.metadata.uid });
  } catch (err) {
    logger.error('Eviction manager: pod failed to evict', { pod: podKey(pod), podUID: pod.metadata.uid, err: errorMessage(err) });
  }
  return true;
}
