/**
 * A counting semaphore: at most `limit` holders at once (Infinity = no limit). Waiters are served
 * FIFO within their priority; every `high` waiter goes before any `normal` one.
 */
export class Semaphore {
  readonly #limit: number;
  #active = 0;
  readonly #waiters: Record<SemaphorePriority, Array<() => void>> = { high: [], normal: [] };

  constructor(limit: number) {
    this.#limit = limit;
  }

  async run<T>(fn: () => Promise<T>, priority: SemaphorePriority = 'normal'): Promise<T> {
    await this.#acquire(priority);
    try {
      return await fn();
    } finally {
      this.#release();
    }
  }

  #acquire(priority: SemaphorePriority): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.#waiters[priority].push(resolve));
  }

  #release(): void {
    const next = this.#waiters.high.shift() ?? this.#waiters.normal.shift();
    // Hand the slot straight to the next waiter, keeping the count.
    if (next !== undefined) next();
    else this.#active--;
  }
}

export type SemaphorePriority = 'high' | 'normal';
