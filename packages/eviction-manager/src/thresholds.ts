import { isValidQuantity, parseQuantity } from '@kubelet-ts/api';
import { z } from 'zod';
import { EVICTION_SIGNALS } from './constants.js';
import type { EvictionSignal } from './constants.js';
import { EvictionError } from './errors.js';

/** A threshold value: an absolute quantity (bytes, inodes, PIDs) or a fraction of capacity (0.1 for `10%`). */
export type ThresholdValue = { quantity: number; text: string } | { percentage: number };

/** Upstream evictionapi.Threshold (operator is always LessThan). */
export interface EvictionThreshold {
  signal: EvictionSignal;
  value: ThresholdValue;
  /** 0 for a hard threshold; a soft one must be met this long before it acts. */
  gracePeriodMs: number;
  /** Reclaim this much beyond the threshold before the pressure counts as relieved. */
  minReclaim?: ThresholdValue;
}

/** The eviction part of the KubeletConfiguration, durations already in milliseconds. */
export interface EvictionConfig {
  /** `signal → quantity | percentage`, e.g. `{ 'memory.available': '100Mi' }` (already merged with defaults as wanted). */
  evictionHard?: Record<string, string>;
  evictionSoft?: Record<string, string>;
  /** `signal → ms`; every soft threshold needs one. */
  evictionSoftGracePeriodMs?: Record<string, number>;
  evictionMinimumReclaim?: Record<string, string>;
  /** Default 5 min. */
  evictionPressureTransitionPeriodMs?: number;
  /** Cap of a soft eviction's pod grace period, seconds. Default 0 (upstream). */
  evictionMaxPodGracePeriodSeconds?: number;
}

const signalSchema = z.enum(EVICTION_SIGNALS as [EvictionSignal, ...EvictionSignal[]]);
const mapSchema = z.record(z.string(), z.string());
export const EvictionConfigSchema = z.object({
  evictionHard: mapSchema.optional(),
  evictionSoft: mapSchema.optional(),
  evictionSoftGracePeriodMs: z.record(z.string(), z.number().nonnegative()).optional(),
  evictionMinimumReclaim: mapSchema.optional(),
  evictionPressureTransitionPeriodMs: z.number().nonnegative().optional(),
  evictionMaxPodGracePeriodSeconds: z.number().int().optional(),
});

/** Parses `10%` or a quantity (`100Mi`, `1000`). Throws EvictionError `INVALID_CONFIG` with the field path. */
export function parseThresholdValue(value: string, field: string): ThresholdValue {
  const fail = (why: string): never => {
    throw new EvictionError('INVALID_CONFIG', `${field}: ${why}`);
  };
  const text = value.trim();
  if (text.endsWith('%')) {
    const pct = Number(text.slice(0, -1));
    if (text.length === 1 || !Number.isFinite(pct)) fail(`invalid percentage ${JSON.stringify(value)}`);
    // matches kubelet: "eviction percentage threshold ... must be >= 0% and <= 100%"
    if (pct < 0 || pct > 100) fail(`percentage ${JSON.stringify(value)} must be >= 0% and <= 100%`);
    return { percentage: pct / 100 };
  }
  if (!isValidQuantity(text)) fail(`invalid quantity or percentage ${JSON.stringify(value)}`);
  const quantity = parseQuantity(text);
  if (quantity < 0) fail(`threshold ${JSON.stringify(value)} must be positive`);
  return { quantity, text };
}

function checkSignal(signal: string, field: string): EvictionSignal {
  const parsed = signalSchema.safeParse(signal);
  if (!parsed.success) throw new EvictionError('INVALID_CONFIG', `${field}: unsupported eviction signal ${JSON.stringify(signal)}`);
  return parsed.data;
}

/**
 * Upstream ParseThresholdConfig: hard thresholds (grace 0), soft thresholds with their grace
 * periods (required), and minimum reclaim attached to every threshold of the same signal.
 */
export function parseThresholdConfig(config: EvictionConfig): EvictionThreshold[] {
  const checked = EvictionConfigSchema.safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new EvictionError('INVALID_CONFIG', `eviction config ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const minReclaim = new Map<EvictionSignal, ThresholdValue>();
  for (const [signal, value] of Object.entries(config.evictionMinimumReclaim ?? {})) {
    const field = `evictionMinimumReclaim.${signal}`;
    minReclaim.set(checkSignal(signal, field), parseThresholdValue(value, field));
  }
  const out: EvictionThreshold[] = [];
  const add = (signal: EvictionSignal, value: ThresholdValue, gracePeriodMs: number): void => {
    // A zero threshold never triggers (upstream drops 0 and 0%).
    if ('quantity' in value ? value.quantity === 0 : value.percentage === 0) return;
    const reclaim = minReclaim.get(signal);
    out.push({ signal, value, gracePeriodMs, ...(reclaim !== undefined ? { minReclaim: reclaim } : {}) });
  };
  for (const [signal, value] of Object.entries(config.evictionHard ?? {})) {
    const field = `evictionHard.${signal}`;
    add(checkSignal(signal, field), parseThresholdValue(value, field), 0);
  }
  for (const [signal, value] of Object.entries(config.evictionSoft ?? {})) {
    const field = `evictionSoft.${signal}`;
    const s = checkSignal(signal, field);
    const grace = config.evictionSoftGracePeriodMs?.[signal];
    // matches kubelet: "grace period must be specified for the soft eviction threshold"
    if (grace === undefined)
      throw new EvictionError('INVALID_CONFIG', `${field}: grace period must be specified for the soft eviction threshold ${signal}`);
    add(s, parseThresholdValue(value, field), grace);
  }
  return out;
}

/** Upstream GetThresholdQuantity: the absolute value, or percentage × capacity (rounded down, as int64 conversion). */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  return 'quantity' in value ? value.quantity : Math.floor(capacity * value.percentage);
}

export function isHardThreshold(t: EvictionThreshold): boolean {
  return t.gracePeriodMs === 0;
}

/** The same signal with the same grace class (upstream compareThresholdValue + signal + grace). */
export function sameThreshold(a: EvictionThreshold, b: EvictionThreshold): boolean {
  return a.signal === b.signal && a.gracePeriodMs === b.gracePeriodMs && JSON.stringify(a.value) === JSON.stringify(b.value);
}
