import type { PodInformer, PodInformerEventHandler } from '../api-source.js';

function keyOf(obj: unknown): string {
  const meta = (obj as { metadata?: { namespace?: unknown; name?: unknown } } | undefined)?.metadata;
  return `${String(meta?.namespace ?? '')}/${String(meta?.name ?? '')}`;
}

/**
 * A PodInformer driven by the test (structurally what kube-client's informer offers): `add`,
 * `update` and `delete` change the store and call the handlers as a watch would; `sync()` marks the
 * first list as stored. Objects are stored as given (no validation), keyed by `namespace/name`.
 */
export class FakePodInformer implements PodInformer {
  readonly #store = new Map<string, unknown>();
  readonly #handlers = new Set<PodInformerEventHandler>();
  #synced = false;
  #waiters: Array<() => void> = [];

  /** How many handlers are subscribed now. */
  get handlerCount(): number {
    return this.#handlers.size;
  }

  list(): unknown[] {
    return [...this.#store.values()];
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  addEventHandler(handler: PodInformerEventHandler): () => void {
    this.#handlers.add(handler);
    return () => this.#handlers.delete(handler);
  }

  /** The first list is stored: `hasSynced()` turns true and `waitForSync` callers resume. */
  sync(): void {
    this.#synced = true;
    for (const resolve of this.#waiters.splice(0)) resolve();
  }

  /** Adds (or, for a known key, updates) an object. */
  add(obj: unknown): void {
    const key = keyOf(obj);
    const old = this.#store.get(key);
    this.#store.set(key, obj);
    for (const h of [...this.#handlers]) {
      if (old === undefined) h.onAdd?.(obj);
      else h.onUpdate?.(old, obj);
    }
  }

  update(obj: unknown): void {
    this.add(obj);
  }

  /** Removes the object with the key of `obj`, as a DELETED watch event. */
  delete(obj: unknown): void {
    const key = keyOf(obj);
    const old = this.#store.get(key);
    if (old === undefined) return;
    this.#store.delete(key);
    for (const h of [...this.#handlers]) h.onDelete?.(old);
  }
}
