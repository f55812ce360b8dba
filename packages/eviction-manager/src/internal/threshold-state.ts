import type { PressureConditionType } from '../constants.js';
import { SIGNAL_TO_NODE_CONDITION } from '../constants.js';
import { thresholdsMet } from '../signals.js';
import type { SignalObservations } from '../signals.js';
import { sameThreshold } from '../thresholds.js';
import type { EvictionThreshold } from '../thresholds.js';
import { CONDITION_ORDER } from './pressure-conditions.js';

/** What one pass's observations mean once grace and transition periods are applied. */
export interface ThresholdObservation {
  /** Thresholds met for at least their grace period: the ones to act on. */
  met: EvictionThreshold[];
  /** Pressure conditions to show: observed within the transition period. */
  conditions: PressureConditionType[];
}

/**
 * Upstream managerImpl's thresholdsMet, thresholdsFirstObservedAt and nodeConditionsLastObservedAt,
 * with thresholdsMetGracePeriod and nodeConditionsObservedSince over them.
 */
export interface ThresholdState {
  observe(observations: SignalObservations, now: number): ThresholdObservation;
}

export function createThresholdState(thresholds: readonly EvictionThreshold[], transitionPeriodMs: number): ThresholdState {
  let thresholdsMetNow: EvictionThreshold[] = [];
  let firstObservedAt: Array<{ threshold: EvictionThreshold; at: number }> = [];
  const conditionLastObservedAt = new Map<PressureConditionType, number>();
  return {
    observe(observations, now) {
      // Thresholds met now, plus those met last time that have not reclaimed their minimum yet.
      const metNow = thresholdsMet(thresholds, observations, false);
      if (thresholdsMetNow.length > 0) {
        const unresolved = thresholdsMet(thresholdsMetNow, observations, true);
        for (const t of unresolved) if (!metNow.some((m) => sameThreshold(m, t))) metNow.push(t);
      }
      firstObservedAt = metNow.map((threshold) => ({
        threshold,
        at: firstObservedAt.find((f) => sameThreshold(f.threshold, threshold))?.at ?? now,
      }));
      // A condition stays until it has not been observed for the transition period (no flapping).
      for (const t of metNow) conditionLastObservedAt.set(SIGNAL_TO_NODE_CONDITION[t.signal], now);
      const conditions = CONDITION_ORDER.filter((c) => {
        const at = conditionLastObservedAt.get(c);
        return at !== undefined && now - at < transitionPeriodMs;
      });
      const met = firstObservedAt.filter((f) => now - f.at >= f.threshold.gracePeriodMs).map((f) => f.threshold);
      thresholdsMetNow = met;
      return { met, conditions };
    },
  };
}
