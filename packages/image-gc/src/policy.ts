import { ImageGCError } from './errors.js';

/** Upstream ImageGCPolicy: the band in which image garbage collection runs, and the ages that bound it. */
export interface ImageGCPolicy {
  /** Disk usage (percent of the image filesystem) at or above which GC frees space (imageGCHighThresholdPercent). */
  highThresholdPercent: number;
  /** The usage GC frees down to (imageGCLowThresholdPercent). */
  lowThresholdPercent: number;
  /** An image first seen less than this long ago is never removed for space (imageMinimumGCAge). */
  minAgeMs: number;
  /** An image unused for longer than this is removed whatever the disk usage; 0 turns it off (imageMaximumGCAge). */
  maxAgeMs: number;
}

/** KubeletConfiguration defaults: 85 %, 80 %, 2 min, off. */
export const DEFAULT_IMAGE_GC_POLICY: Readonly<ImageGCPolicy> = Object.freeze({
  highThresholdPercent: 85,
  lowThresholdPercent: 80,
  minAgeMs: 2 * 60_000,
  maxAgeMs: 0,
});

/** Upstream ImageGCPeriod: how often the kubelet runs image GC. */
export const IMAGE_GC_PERIOD_MS = 5 * 60_000;

/** Fills defaults and checks ranges as upstream NewImageGCManager does (messages match). */
export function resolveImageGCPolicy(partial: Partial<ImageGCPolicy> = {}): ImageGCPolicy {
  const policy: ImageGCPolicy = { ...DEFAULT_IMAGE_GC_POLICY, ...definedOnly(partial) };
  const { highThresholdPercent: high, lowThresholdPercent: low } = policy;
  if (!Number.isInteger(high) || high < 0 || high > 100) {
    throw new ImageGCError('INVALID_POLICY', `invalid HighThresholdPercent ${high}, must be in range [0-100]`);
  }
  if (!Number.isInteger(low) || low < 0 || low > 100) {
    throw new ImageGCError('INVALID_POLICY', `invalid LowThresholdPercent ${low}, must be in range [0-100]`);
  }
  if (low > high) {
    throw new ImageGCError('INVALID_POLICY', `LowThresholdPercent ${low} can not be higher than HighThresholdPercent ${high}`);
  }
  if (!(policy.minAgeMs >= 0)) throw new ImageGCError('INVALID_POLICY', `invalid MinAge ${policy.minAgeMs} ms, must not be negative`);
  if (!(policy.maxAgeMs >= 0)) throw new ImageGCError('INVALID_POLICY', `invalid MaxAge ${policy.maxAgeMs} ms, must not be negative`);
  return policy;
}

function definedOnly(partial: Partial<ImageGCPolicy>): Partial<ImageGCPolicy> {
  const out: Partial<ImageGCPolicy> = {};
  for (const [key, value] of Object.entries(partial) as [keyof ImageGCPolicy, number | undefined][]) {
    if (value !== undefined) out[key] = value;
  }
  return out;
}
