// Client-side throttling: client-go's flowcontrol token bucket (golang.org/x/time/rate semantics).
import type { Clock } from '@kubelet-ts/common';

export interface RateLimiter {
  /** Takes a token, waiting for one when the bucket is empty; resolves to the ms waited. */
  wait(signal?: AbortSignal): Promise<number>;
}

export interface TokenBucketOptions {
  /** Tokens per second; 0 or less: no limit (client-go's QPS -1 for the heartbeat client). */
  qps: number;
  /** Bucket size: requests that may go at once after a quiet period. */
  burst: number;
  clock: Clock;
}

/**
 * A bucket of `burst` tokens refilled at `qps`. A request reserves a token at once, possibly going into
 * debt, and sleeps until its token exists, so waiting requests go in arrival order at exactly `qps`;
 * an aborted wait gives its token back.
 */
export function createTokenBucket(options: TokenBucketOptions): RateLimiter {
  const { qps, clock } = options;
  if (qps <= 0 || !Number.isFinite(qps)) return { wait: () => Promise.resolve(0) };
  const burst = Math.max(1, Math.floor(options.burst));
  let tokens = burst;
  let last = clock.now();
  const advance = (now: number): void => {
    if (now > last) {
      tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      last = now;
    }
  };
  return {
    async wait(signal) {
      signal?.throwIfAborted();
      advance(clock.now());
      tokens -= 1;
      if (tokens >= 0) return 0;
      const delayMs = Math.ceil((-tokens * 1000) / qps);
      try {
        await clock.sleep(delayMs, signal);
      } catch (err) {
        tokens += 1;
        throw err;
      }
      return delayMs;
    },
  };
}
