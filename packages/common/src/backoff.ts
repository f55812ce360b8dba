import type { Clock } from './clock.js';

export interface BackoffOptions {
  /** First delay after a failure. */
  initialMs: number;
  /** Upper bound of the delay. */
  maxMs: number;
  clock: Clock;
  /**
   * An entry untouched for this long starts over at `initialMs`. Upstream (flowcontrol.Backoff)
   * resets after 2 × max, which for CrashLoopBackOff is 10 minutes of clean running.
   */
  resetAfterMs?: number;
}

/**
 * Per-key exponential backoff, the shape of the kubelet's flowcontrol.Backoff: each failure
 * doubles the key's delay up to the maximum; `isInBackoffSince` asks whether an attempt made
 * at a given time is still within the window.
 */
export interface Backoff {
  /** Records a failure at `now` and returns the delay that now applies. */
  next(key: string): number;
  /** The current delay for `key`, or 0 when it has none. */
  get(key: string): number;
  /** True when the key's window, started at `sinceMs`, has not yet passed. */
  isInBackoffSince(key: string, sinceMs: number): boolean;
  reset(key: string): void;
  /** Drops entries not touched for longer than the reset period. */
  gc(): void;
}

interface Entry {
  delayMs: number;
  lastUpdateMs: number;
}

export function createBackoff(options: BackoffOptions): Backoff {
  const { initialMs, maxMs, clock } = options;
  const resetAfterMs = options.resetAfterMs ?? 2 * maxMs;
  const entries = new Map<string, Entry>();

  const stale = (entry: Entry, now: number): boolean => now - entry.lastUpdateMs > resetAfterMs;

  return {
    next(key) {
      const now = clock.now();
      const entry = entries.get(key);
      if (entry === undefined || stale(entry, now)) {
        entries.set(key, { delayMs: initialMs, lastUpdateMs: now });
        return initialMs;
      }
      entry.delayMs = Math.min(entry.delayMs * 2, maxMs);
      entry.lastUpdateMs = now;
      return entry.delayMs;
    },
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined || stale(entry, clock.now())) return 0;
      return entry.delayMs;
    },
    isInBackoffSince(key, sinceMs) {
      const entry = entries.get(key);
      if (entry === undefined) return false;
      const now = clock.now();
      if (stale(entry, now)) return false;
      return now - sinceMs < entry.delayMs;
    },
    reset(key) {
      entries.delete(key);
    },
    gc() {
      const now = clock.now();
      for (const [key, entry] of entries) if (stale(entry, now)) entries.delete(key);
    },
  };
}
