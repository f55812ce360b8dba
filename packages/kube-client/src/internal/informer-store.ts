// The informer's cache and its handlers: client-go's thread-safe store plus the processor, in one.
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { InformerEventHandler } from '../types.js';

/** An object as the store holds it, with the identity read from its raw metadata. */
export interface StoredObject<T> {
  key: string;
  resourceVersion: string;
  object: T;
}

export interface InformerStore<T> {
  keyFor(obj: T, fallback: string): string;
  /** ADDED or MODIFIED: onAdd when new, onUpdate otherwise. */
  upsert(item: StoredObject<T>): void;
  /** DELETED: drops the key and calls onDelete with the event's object (the last state). */
  remove(key: string, lastState: T | undefined): void;
  /** A full LIST: diffs with the store (add, update when the resourceVersion moved, delete what vanished), then synced. */
  replace(items: StoredObject<T>[]): void;
  resync(): void;
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  list(): T[];
  get(key: string): T | undefined;
  addHandler(handler: InformerEventHandler<T>): () => void;
}

export function createInformerStore<T>(options: { logger: Logger; keyOf?: (obj: T) => string }): InformerStore<T> {
  const { logger } = options;
  const items = new Map<string, StoredObject<T>>();
  const handlers = new Set<InformerEventHandler<T>>();
  let synced = false;
  const syncWaiters = new Set<() => void>();

  const each = (what: string, key: string, call: (h: InformerEventHandler<T>) => void, only?: InformerEventHandler<T>): void => {
    for (const handler of only === undefined ? handlers : [only]) {
      try {
        call(handler);
      } catch (err) {
        // A failing handler must not stop the others, nor the informer.
        logger.error('Informer event handler failed', { event: what, key, err: errorMessage(err) });
      }
    }
  };
  const added = (item: StoredObject<T>): void => each('add', item.key, (h) => h.onAdd?.(item.object));
  const updated = (old: StoredObject<T>, item: StoredObject<T>): void =>
    each('update', item.key, (h) => h.onUpdate?.(old.object, item.object));
  const deleted = (key: string, obj: T): void => each('delete', key, (h) => h.onDelete?.(obj));

  return {
    keyFor: (obj, fallback) => (options.keyOf === undefined ? fallback : options.keyOf(obj)),
    upsert(item) {
      const old = items.get(item.key);
      items.set(item.key, item);
      if (old === undefined) added(item);
      else updated(old, item);
    },
    remove(key, lastState) {
      const old = items.get(key);
      if (old === undefined) return;
      items.delete(key);
      deleted(key, lastState ?? old.object);
    },
    replace(list) {
      const fresh = new Map(list.map((item) => [item.key, item]));
      for (const [key, old] of items) {
        if (!fresh.has(key)) {
          items.delete(key);
          deleted(key, old.object);
        }
      }
      for (const item of fresh.values()) {
        const old = items.get(item.key);
        items.set(item.key, item);
        if (old === undefined) added(item);
        else if (old.resourceVersion !== item.resourceVersion) updated(old, item);
      }
      if (!synced) {
        synced = true;
        for (const wake of syncWaiters) wake();
        syncWaiters.clear();
      }
    },
    resync() {
      if (!synced) return;
      for (const item of items.values()) each('resync', item.key, (h) => h.onUpdate?.(item.object, item.object));
    },
    hasSynced: () => synced,
    waitForSync(signal) {
      if (synced) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(signal.reason);
          return;
        }
        const onAbort = (): void => {
          syncWaiters.delete(wake);
          reject(signal?.reason);
        };
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        syncWaiters.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    list: () => [...items.values()].map((item) => item.object),
    get: (key) => items.get(key)?.object,
    addHandler(handler) {
      handlers.add(handler);
      for (const item of items.values()) each('add', item.key, (h) => h.onAdd?.(item.object), handler);
      return () => {
        handlers.delete(handler);
      };
    },
  };
}
