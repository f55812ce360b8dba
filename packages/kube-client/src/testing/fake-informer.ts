import type { Informer, InformerEventHandler } from '../types.js';

const defaultKey = (obj: unknown): string => {
  const meta = (obj as { metadata?: { name?: unknown; namespace?: unknown } } | undefined)?.metadata;
  const name = typeof meta?.name === 'string' ? meta.name : '';
  return typeof meta?.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/${name}` : name;
};

/**
 * An informer driven by the test: set objects, emit add/update/delete, toggle synced. Handlers added
 * later get onAdd for what is stored, as with the real informer; `start` only records its signal.
 */
export class FakeInformer<T> implements Informer<T> {
  readonly #items = new Map<string, T>();
  readonly #handlers = new Set<InformerEventHandler<T>>();
  readonly #keyOf: (obj: T) => string;
  #synced: boolean;
  #current = true;
  #waiters: (() => void)[] = [];
  /** The signals `start` was called with. */
  readonly startedWith: AbortSignal[] = [];

  constructor(options: { keyOf?: (obj: T) => string; synced?: boolean; objects?: readonly T[] } = {}) {
    this.#keyOf = options.keyOf ?? defaultKey;
    this.#synced = options.synced ?? true;
    for (const obj of options.objects ?? []) this.#items.set(this.#keyOf(obj), obj);
  }

  start(signal: AbortSignal): void {
    this.startedWith.push(signal);
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      this.#waiters.push(resolve);
    });
  }

  isCurrent(): boolean {
    return this.#current;
  }

  /** What `isCurrent` answers (true until set): false plays a list/watch that failed and has not recovered. */
  setCurrent(current: boolean): void {
    this.#current = current;
  }

  setSynced(synced: boolean): void {
    this.#synced = synced;
    if (synced) for (const wake of this.#waiters.splice(0)) wake();
  }

  list(): T[] {
    return [...this.#items.values()];
  }

  get(key: string): T | undefined {
    return this.#items.get(key);
  }

  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.#handlers.add(handler);
    for (const obj of this.#items.values()) handler.onAdd?.(obj);
    return () => {
      this.#handlers.delete(handler);
    };
  }

  /** Replaces the stored objects without calling handlers. */
  setObjects(objects: readonly T[]): void {
    this.#items.clear();
    for (const obj of objects) this.#items.set(this.#keyOf(obj), obj);
  }

  emitAdd(obj: T): void {
    this.#items.set(this.#keyOf(obj), obj);
    for (const h of this.#handlers) h.onAdd?.(obj);
  }

  /** onUpdate with the stored object (or `obj` itself when there is none) as the old one. */
  emitUpdate(obj: T): void {
    const key = this.#keyOf(obj);
    const old = this.#items.get(key) ?? obj;
    this.#items.set(key, obj);
    for (const h of this.#handlers) h.onUpdate?.(old, obj);
  }

  emitDelete(obj: T): void {
    this.#items.delete(this.#keyOf(obj));
    for (const h of this.#handlers) h.onDelete?.(obj);
  }
}
