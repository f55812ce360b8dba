/** An opaque timer handle returned by a {@link Clock}. */
export type TimerHandle = { readonly __timer: unique symbol } | NodeJS.Timeout | number;

/**
 * Time as a collaborator: every library takes a Clock so that unit tests can drive time
 * with a fake one and never sleep.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
  /** Resolves after `ms`; rejects with the signal's reason when aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Builds `sleep` on top of any setTimeout/clearTimeout pair. */
export function sleepWith(clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The real clock. Timers are unref'd so that a pending timer never keeps a process alive by itself. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
  sleep(ms, signal) {
    return sleepWith(systemClock, ms, signal);
  },
};

/** Spreads periodic work: returns a duration in [base, base * (1 + factor)). Matches wait.Jitter upstream. */
export function jitter(baseMs: number, factor: number, random: () => number = Math.random): number {
  const f = factor <= 0 ? 1 : factor;
  return baseMs + random() * f * baseMs;
}
