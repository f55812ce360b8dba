import type { Clock } from './clock.js';

export interface TokenBucketOptions {
  /** Tokens per second; 0 or less: no limit (client-go's QPS -1 for the heartbeat client). */
  qps: number;
  /** Bucket size: what may go at once after a quiet period. */
  burst: number;
  clock: Pick<Clock, 'now' | 'sleep'>;
}

/**
 * client-go's flowcontrol token bucket (golang.org/x/time/rate semantics): it starts full with
 * `burst` tokens and refills `qps` a second. A clock that goes back refills nothing and drains nothing.
 */
export interface TokenBucket {
  /** Takes a token when one is there; never waits (the event spam filter's TryAccept). */
  tryAccept(): boolean;
  /**
   * Takes a token, waiting for one when the bucket is empty; resolves to the ms waited. A wait
   * reserves its token at once, possibly going into debt, so waiting callers go in arrival order at
   * exactly `qps`; an aborted wait gives its token back.
   */
  wait(signal?: AbortSignal): Promise<number>;
}

export function createTokenBucket(options: TokenBucketOptions): TokenBucket {
  const { qps, clock } = options;
  if (qps <= 0 || !Number.isFinite(qps)) return { tryAccept: () => true, wait: () => Promise.resolve(0) };
  const burst = Math.max(1, Math.floor(options.burst));
  let tokens = burst;
  let last = clock.now();
  const advance = (): void => {
    const now = clock.now();
    if (now > last) {
      tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
      last = now;
    }
  };
  return {
    tryAccept() {
      advance();
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
    async wait(signal) {
      signal?.throwIfAborted();
      advance();
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
