/**
 * A least-recently-used map of bounded size (the groupcache `lru.Cache` the correlator uses):
 * `get` and `set` make an entry the most recent; past `maxEntries` the least recent is forgotten.
 */
export class LruCache<V> {
  readonly #maxEntries: number;
  readonly #entries = new Map<string, V>();

  constructor(maxEntries: number) {
    this.#maxEntries = Math.max(1, maxEntries);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    // A Map iterates in insertion order: re-inserting makes the entry the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }
}
