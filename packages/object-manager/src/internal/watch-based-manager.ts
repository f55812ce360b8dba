// Upstream pkg/kubelet/util/manager: cacheBasedManager (pods → references) over objectCache (one
// reflector per object, reference-counted by pod UID, stopped when immutable or idle).
import type { Pod } from '@kubelet-ts/api';
import { formatPath } from '@kubelet-ts/api';
import type { Clock, TimerHandle } from '@kubelet-ts/common';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import type { Informer } from '@kubelet-ts/kube-client';
import { createInformer } from '@kubelet-ts/kube-client';
import { z } from 'zod';
import {
  DEFAULT_RESYNC_INTERVAL_MS,
  MAX_IDLE_FACTOR,
  MIN_IDLE_TIME_MS,
  RECYCLE_IDLE_PERIOD_MS,
  SYNC_TIMEOUT_MS,
  WAIT_TIMEOUT_MESSAGE,
} from '../constants.js';
import { ObjectManagerError } from '../errors.js';
import type { ObjectCacheEntry, ObjectManager, ObjectManagerOptions } from '../types.js';

/** What differs between ConfigMaps and Secrets. */
export interface ObjectKind<T> {
  /** The collection: `configmaps`, `secrets`. */
  resource: string;
  /** Upstream's group resource in messages: `configmap`, `secret`. */
  singular: string;
  schema: z.ZodType<T>;
  isImmutable(obj: T): boolean;
  referencedNames(pod: Pod): Set<string>;
}

// The watch keeps what has a name; the full schema is applied by get, so that a bad object is an
// error naming its field rather than a silent "not found".
const StoredSchema = z.looseObject({ metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }) });
type Stored = z.infer<typeof StoredSchema>;

interface Item {
  namespace: string;
  name: string;
  refs: Map<string, number>;
  informer: Informer<Stored> | undefined;
  controller: AbortController | undefined;
  immutable: boolean;
  lastAccess: number;
}

const seg = (s: string): string => encodeURIComponent(s);

export function createWatchBasedManager<T>(kind: ObjectKind<T>, options: ObjectManagerOptions): ObjectManager<T> {
  const clock: Clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ component: `${kind.singular}-manager` });
  const maxIdleMs = Math.max(MIN_IDLE_TIME_MS, (options.resyncIntervalMs ?? DEFAULT_RESYNC_INTERVAL_MS) * MAX_IDLE_FACTOR);
  const items = new Map<string, Item>();
  const registered = new Map<string, { pod: Pod; names: Set<string> }>();
  const parsed = new WeakMap<object, T>();
  let stopped = false;

  const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;

  const startWatch = (item: Item): void => {
    const informer = createInformer<Stored>({
      client: options.client,
      path: `/api/v1/namespaces/${seg(item.namespace)}/${kind.resource}`,
      fieldSelector: `metadata.name=${item.name}`,
      schema: StoredSchema,
      clock,
      logger,
      ...(options.random !== undefined ? { random: options.random } : {}),
    });
    item.controller = new AbortController();
    item.informer = informer;
    informer.start(item.controller.signal);
  };

  /** Stops the watch; an immutable object keeps its store (its last copy), any other is re-listed by the next get. */
  const stopWatch = (item: Item): boolean => {
    if (item.controller === undefined) return false;
    item.controller.abort();
    item.controller = undefined;
    if (!item.immutable) item.informer = undefined;
    return true;
  };

  const addReference = (namespace: string, name: string, podUID: string): void => {
    const key = objectKey(namespace, name);
    let item = items.get(key);
    if (item === undefined) {
      item = { namespace, name, refs: new Map(), informer: undefined, controller: undefined, immutable: false, lastAccess: 0 };
      items.set(key, item);
      if (!stopped) startWatch(item);
    }
    item.refs.set(podUID, (item.refs.get(podUID) ?? 0) + 1);
  };

  const deleteReference = (namespace: string, name: string, podUID: string): void => {
    const key = objectKey(namespace, name);
    const item = items.get(key);
    if (item === undefined) return;
    const count = (item.refs.get(podUID) ?? 0) - 1;
    if (count > 0) item.refs.set(podUID, count);
    else item.refs.delete(podUID);
    if (item.refs.size === 0) {
      stopWatch(item);
      items.delete(key);
    }
  };

  const podKey = (pod: Pod): string => `${pod.metadata.namespace}/${pod.metadata.name}/${pod.metadata.uid}`;

  const recycleIdle = (): void => {
    const now = clock.now();
    for (const [key, item] of items) {
      // Never stop a watch before its first list: that work would be lost and redone.
      if (item.controller === undefined || item.informer?.hasSynced() !== true || now <= item.lastAccess + maxIdleMs) continue;
      if (stopWatch(item))
        logger.debug('Not acquired for long time, Stopped watching for changes', { objectKey: key, maxIdleTime: maxIdleMs });
    }
  };
  const recycleTimer: TimerHandle = clock.setInterval(recycleIdle, RECYCLE_IDLE_PERIOD_MS);

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clock.clearInterval(recycleTimer);
    for (const item of items.values()) stopWatch(item);
  };
  if (options.signal?.aborted === true) stop();
  else options.signal?.addEventListener('abort', stop, { once: true });

  // Upstream polls hasSynced every 10 ms for up to 1 s; waiting on the informer is the same bound
  // without the polling latency.
  const waitForSync = async (item: Item): Promise<boolean> => {
    const informer = item.informer;
    if (informer?.hasSynced() === true) return true;
    const timeout = new AbortController();
    const timer = clock.setTimeout(() => timeout.abort(), SYNC_TIMEOUT_MS);
    try {
      if (informer === undefined) await clock.sleep(SYNC_TIMEOUT_MS);
      else await informer.waitForSync(timeout.signal);
      return informer !== undefined;
    } catch {
      return false;
    } finally {
      clock.clearTimeout(timer);
    }
  };

  const validate = (item: Item, raw: Stored): T => {
    const cached = parsed.get(raw);
    if (cached !== undefined) return cached;
    const result = kind.schema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0];
      const path = issue === undefined || issue.path.length === 0 ? '(root)' : formatPath(issue.path);
      throw new ObjectManagerError(
        'INVALID_OBJECT',
        `invalid ${kind.singular} ${item.namespace}/${item.name}: ${path}: ${issue?.message ?? 'invalid'}`,
        { cause: result.error },
      );
    }
    parsed.set(raw, result.data);
    return result.data;
  };

  return {
    registerPod(pod) {
      const names = kind.referencedNames(pod);
      const key = podKey(pod);
      const prev = registered.get(key);
      registered.set(key, { pod, names });
      const { namespace, uid } = pod.metadata;
      for (const name of names) if (prev?.names.has(name) !== true) addReference(namespace, name, uid);
      for (const name of prev?.names ?? []) if (!names.has(name)) deleteReference(namespace, name, uid);
    },

    unregisterPod(pod) {
      const key = podKey(pod);
      const prev = registered.get(key);
      registered.delete(key);
      for (const name of prev?.names ?? []) deleteReference(prev?.pod.metadata.namespace ?? '', name, prev?.pod.metadata.uid ?? '');
    },

    async get(namespace, name) {
      const item = items.get(objectKey(namespace, name));
      if (item === undefined)
        throw new ObjectManagerError('NOT_REGISTERED', `object ${JSON.stringify(namespace)}/${JSON.stringify(name)} not registered`);
      // Recorded whether or not the get succeeds: it keeps the watch from being recycled under it.
      item.lastAccess = clock.now();
      if (!stopped && !item.immutable && item.controller === undefined) startWatch(item);
      if (!(await waitForSync(item))) {
        throw new ObjectManagerError('SYNC_TIMEOUT', `failed to sync ${kind.singular} cache: ${WAIT_TIMEOUT_MESSAGE}`);
      }
      const raw = item.informer?.get(objectKey(namespace, name));
      if (raw === undefined) return undefined;
      const obj = validate(item, raw);
      if (kind.isImmutable(obj) && !item.immutable) {
        item.immutable = true;
        if (stopWatch(item)) logger.debug('Stopped watching for changes - object is immutable', { obj: objectKey(namespace, name) });
      }
      return obj;
    },

    objects() {
      return [...items.values()].map((item) => ({
        namespace: item.namespace,
        name: item.name,
        referencedBy: [...item.refs.keys()].sort(),
        watching: item.controller !== undefined,
        immutable: item.immutable,
      })) satisfies ObjectCacheEntry[];
    },

    stop,
  };
}
