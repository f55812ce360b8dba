import type { Backoff, Clock, Logger } from '@kubelet-ts/common';
import { createBackoff, noopLogger, systemClock } from '@kubelet-ts/common';
import type { z } from 'zod';
import { createInformerStore } from './internal/informer-store.js';
import { runReflector } from './internal/reflector.js';
import type { Informer, KubeClient } from './types.js';

export interface InformerOptions<T> {
  /** Any client with list and watch (structurally a KubeClient). */
  client: Pick<KubeClient, 'list' | 'watch'>;
  /** The collection path, e.g. `/api/v1/pods` (all namespaces) or `/api/v1/namespaces/x/configmaps`. */
  path: string;
  fieldSelector?: string;
  labelSelector?: string;
  /** Validates each object; an object that fails is logged (field and reason) and skipped. */
  schema: z.ZodType<T>;
  /** The store key; "namespace/name" (or "name") from metadata when omitted. */
  keyOf?: (obj: T) => string;
  logger?: Logger;
  clock?: Clock;
  /** Delay after failures; client-go's reflector backoff (800 ms doubling to 30 s, reset after 2 min of health) when omitted. */
  backoff?: Backoff;
  /** Every resyncMs, onUpdate(obj, obj) for every stored object (client-go resync); none when omitted or 0. */
  resyncMs?: number;
  /** Items per LIST page (`limit`, client-go's pager: 500). */
  pageSize?: number;
  /** The source of randomness of the watch timeout and the back-off jitter (tests make it fixed). */
  random?: () => number;
}

/** client-go reflector: NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0). */
export const INFORMER_BACKOFF_INITIAL_MS = 800;
export const INFORMER_BACKOFF_MAX_MS = 30_000;
export const INFORMER_BACKOFF_RESET_MS = 120_000;

/**
 * An informer over list and watch, client-go's reflector semantics: LIST with `resourceVersion=0` first
 * (paged by `limit`/`continue` when the server pages), then WATCH with `allowWatchBookmarks=true` and a
 * `timeoutSeconds` in [300, 600) from the last resourceVersion; a watch that ends is resumed from there,
 * every error is retried after back-off, 410 Expired relists, and a relist emits onDelete for objects
 * that vanished meanwhile.
 */
export function createInformer<T>(options: InformerOptions<T>): Informer<T> {
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ informer: options.path });
  const store = createInformerStore<T>({ logger, ...(options.keyOf !== undefined ? { keyOf: options.keyOf } : {}) });
  const backoff =
    options.backoff ??
    createBackoff({
      initialMs: INFORMER_BACKOFF_INITIAL_MS,
      maxMs: INFORMER_BACKOFF_MAX_MS,
      resetAfterMs: INFORMER_BACKOFF_RESET_MS,
      clock,
    });
  let started = false;
  let current = false;
  return {
    start(signal) {
      if (started) throw new Error(`informer ${options.path}: already started`);
      started = true;
      if (options.resyncMs !== undefined && options.resyncMs > 0) {
        const timer = clock.setInterval(() => store.resync(), options.resyncMs);
        signal.addEventListener('abort', () => clock.clearInterval(timer), { once: true });
      }
      void runReflector({
        client: options.client,
        path: options.path,
        fieldSelector: options.fieldSelector,
        labelSelector: options.labelSelector,
        schema: options.schema,
        store,
        clock,
        logger,
        backoff,
        pageSize: options.pageSize ?? 500,
        random: options.random ?? Math.random,
        signal,
        setCurrent: (value) => {
          current = value;
        },
      });
    },
    isCurrent: () => current,
    hasSynced: () => store.hasSynced(),
    waitForSync: (signal) => store.waitForSync(signal),
    list: () => store.list(),
    get: (key) => store.get(key),
    addEventHandler: (handler) => store.addHandler(handler),
  };
}
