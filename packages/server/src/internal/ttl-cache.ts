import type { Clock } from '@kubelet-ts/common';

/**
 * A map whose entries expire `ttlMs` after they were set, on the injected clock. Expired entries are
 * dropped when read and swept when the map grows past `maxEntries` (upstream uses a bounded LRU).
 */
export class TtlCache<V> {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(clock: Pick<Clock, 'now'>, maxEntries = 4096) {
    this.#clock = clock;
    this.#maxEntries = maxEntries;
  }

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#evict();
    this.#entries.set(key, { value, expiresAt: this.#clock.now() + ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }

  #evict(): void {
    const now = this.#clock.now();
    for (const [key, entry] of this.#entries) if (entry.expiresAt <= now) this.#entries.delete(key);
    // Still full: drop the oldest insertions (Map keeps insertion order).
    for (const key of this.#entries.keys()) {
      if (this.#entries.size < this.#maxEntries) break;
      this.#entries.delete(key);
    }
  }
}
