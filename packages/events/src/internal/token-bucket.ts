import type { Clock } from '@kubelet-ts/common';

/**
 * A token bucket on an injected clock (client-go `flowcontrol.NewTokenBucketRateLimiterWithClock`,
 * used only through `TryAccept`): it starts full with `burst` tokens and refills `qps` tokens a second.
 */
export class TokenBucket {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #burst: number;
  readonly #perMs: number;
  #tokens: number;
  #last: number;

  constructor(clock: Pick<Clock, 'now'>, qps: number, burst: number) {
    this.#clock = clock;
    this.#burst = burst;
    this.#perMs = qps / 1000;
    this.#tokens = burst;
    this.#last = clock.now();
  }

  /** Takes a token when one is there; never waits. */
  tryAccept(): boolean {
    const now = this.#clock.now();
    // A clock that went back refills nothing (and does not drain either).
    this.#tokens = Math.min(this.#burst, this.#tokens + Math.max(0, now - this.#last) * this.#perMs);
    this.#last = Math.max(this.#last, now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
