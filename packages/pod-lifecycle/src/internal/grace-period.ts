import type { Pod } from '@kubelet-ts/api';

/** The grace period when neither the pod nor a deletion says otherwise (upstream DefaultTerminationGracePeriodSeconds). */
export const DEFAULT_GRACE_PERIOD_SECONDS = 30;

/**
 * Upstream calculateEffectiveGracePeriod: an explicit override wins, then the deletion's grace
 * period (metadata.deletionGracePeriodSeconds), then the pod spec, then 30 s. Negative values
 * are treated as 0.
 */
export function effectiveGracePeriodSeconds(pod: Pod | undefined, overrideSeconds?: number): number {
  let grace = DEFAULT_GRACE_PERIOD_SECONDS;
  if (pod?.spec.terminationGracePeriodSeconds !== undefined) grace = pod.spec.terminationGracePeriodSeconds;
  if (pod?.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds !== undefined) {
    grace = pod.metadata.deletionGracePeriodSeconds;
  }
  if (overrideSeconds !== undefined) grace = overrideSeconds;
  return Math.max(0, grace);
}
