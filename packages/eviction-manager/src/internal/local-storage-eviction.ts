import type { Pod } from '@kubelet-ts/api';
import { localStorageViolationOf } from '../local-storage.js';
import type { PodStatsFn } from '../ranking.js';
import type { EvictionContext } from './context.js';
import { evictPod } from './evict-pod.js';

/**
 * Upstream localStorageEviction: evicts, at once, every pod over its emptyDir sizeLimit, then its
 * own, then a container's ephemeral-storage limit. Resolves with the pods evicted.
 */
export async function localStorageEviction(
  ctx: EvictionContext,
  pods: readonly Pod[],
  stats: PodStatsFn,
  dedicatedImageFs: boolean,
): Promise<Pod[]> {
  const evicted: Pod[] = [];
  for (const pod of pods) {
    const podStats = stats(pod);
    if (podStats === undefined) continue;
    const violation = localStorageViolationOf(pod, podStats, dedicatedImageFs);
    if (violation !== undefined && (await evictPod(ctx, pod, { gracePeriodSeconds: 0, message: violation.message }))) {
      ctx.evictions.inc({ eviction_signal: violation.signal });
      evicted.push(pod);
    }
  }
  return evicted;
}
