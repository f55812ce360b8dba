// client-go's tools/cache reflector: LIST, then WATCH from the last resourceVersion, forever.
import { formatPath, isResourceExpired, stripNulls } from '@kubelet-ts/api';
import type { Backoff, Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, jitter } from '@kubelet-ts/common';
import { z } from 'zod';
import type { KubeClient, WatchEvent } from '../types.js';
import type { InformerStore, StoredObject } from './informer-store.js';

export interface ReflectorOptions<T> {
  client: Pick<KubeClient, 'list' | 'watch'>;
  path: string;
  fieldSelector: string | undefined;
  labelSelector: string | undefined;
  schema: z.ZodType<T>;
  store: InformerStore<T>;
  clock: Clock;
  logger: Logger;
  backoff: Backoff;
  pageSize: number;
  random: () => number;
  signal: AbortSignal;
  /**
   * Told true when the cache is known to match the server (a list stored, or a watch event), and
   * false after a list or watch failed: until then the cache may miss changes made meanwhile.
   */
  setCurrent: (current: boolean) => void;
}

interface ReflectorState {
  /** The last resourceVersion seen (list, event or bookmark): where the next watch starts. */
  resourceVersion: string;
  /** The resourceVersion of the last complete list: where a relist starts. */
  lastSyncResourceVersion: string;
  /** The last list's resourceVersion was too old (410): relist from the newest (""). */
  lastSyncUnavailable: boolean;
  needList: boolean;
}

const BACKOFF_KEY = 'list-watch';
/** client-go: timeoutSeconds = minWatchTimeout × (1 + rand), minWatchTimeout 5 min. */
const MIN_WATCH_TIMEOUT_S = 300;
/** A watch that ends by itself sooner than this without an event counts as a failure (no hot loop). */
const MIN_HEALTHY_WATCH_MS = 1000;

const MetaSchema = z.object({
  metadata: z.object({
    name: z.string().min(1),
    namespace: z.string().optional(),
    resourceVersion: z.string().optional(),
  }),
});
const ListSchema = z.object({
  metadata: z.object({ resourceVersion: z.string().optional(), continue: z.string().optional() }).optional(),
  items: z.array(z.unknown()).nullish(),
});

const rvOf = (obj: unknown): string | undefined => {
  const rv = (obj as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
};

type Decoded<T> = { ok: true; item: StoredObject<T> } | { ok: false; key: string | undefined };

function decode<T>(o: ReflectorOptions<T>, delivered: unknown, where: string): Decoded<T> {
  // Go decodes null as not set (the API sends null for a zero time, e.g. a condition's lastProbeTime).
  const raw = stripNulls(delivered);
  const meta = MetaSchema.safeParse(raw);
  if (!meta.success) {
    o.logger.warn('Skipping an object without metadata.name', { where, field: formatPath(meta.error.issues[0]?.path ?? []) });
    return { ok: false, key: undefined };
  }
  const { name, namespace, resourceVersion } = meta.data.metadata;
  const fallback = namespace === undefined || namespace === '' ? name : `${namespace}/${name}`;
  const parsed = o.schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    o.logger.warn('Skipping an invalid object', {
      where,
      object: fallback,
      field: issue === undefined ? '' : formatPath(issue.path),
      reason: issue?.message ?? 'invalid',
    });
    return { ok: false, key: fallback };
  }
  return { ok: true, item: { key: o.store.keyFor(parsed.data, fallback), resourceVersion: resourceVersion ?? '', object: parsed.data } };
}

/** One LIST, paged; stores the result (the diff emits the events). */
async function list<T>(o: ReflectorOptions<T>, state: ReflectorState): Promise<void> {
  let resourceVersion = state.lastSyncUnavailable ? '' : state.lastSyncResourceVersion === '' ? '0' : state.lastSyncResourceVersion;
  const selectors = { fieldSelector: o.fieldSelector, labelSelector: o.labelSelector };
  const raw: unknown[] = [];
  let listRv = '';
  let next: Record<string, string | number | undefined> = { ...selectors, limit: o.pageSize, resourceVersion };
  for (;;) {
    let page: unknown;
    try {
      page = await o.client.list(o.path, { query: next, signal: o.signal });
    } catch (err) {
      if (!isResourceExpired(err)) throw err;
      if (next.continue === undefined) {
        if (resourceVersion === '') throw err;
        // The last list's resourceVersion is gone too: list the newest state at once (client-go does).
        o.logger.info('Resource version too old for a list, listing the newest', { resourceVersion });
        state.lastSyncUnavailable = true;
        resourceVersion = '';
        next = { ...selectors, limit: o.pageSize, resourceVersion };
        continue;
      }
      // The continue token expired mid-list: one full list instead (client-go pager, FullListIfExpired).
      o.logger.info('List continuation expired, listing in one page', {});
      raw.length = 0;
      next = { ...selectors, resourceVersion };
      continue;
    }
    const parsed = ListSchema.safeParse(page);
    if (!parsed.success)
      throw new Error(
        `LIST ${o.path}: not a list: ${formatPath(parsed.error.issues[0]?.path ?? [])} ${parsed.error.issues[0]?.message ?? ''}`,
      );
    raw.push(...(parsed.data.items ?? []));
    listRv = parsed.data.metadata?.resourceVersion ?? listRv;
    const token = parsed.data.metadata?.continue;
    if (token === undefined || token === '') break;
    next = { ...selectors, limit: o.pageSize, continue: token };
  }
  const items: StoredObject<T>[] = [];
  raw.forEach((item, index) => {
    const decoded = decode(o, item, `LIST ${o.path} items[${index}]`);
    if (decoded.ok) items.push(decoded.item);
  });
  o.store.replace(items);
  o.setCurrent(true);
  state.lastSyncResourceVersion = listRv;
  state.resourceVersion = listRv;
  state.lastSyncUnavailable = false;
  o.logger.debug('Listed', { items: items.length, skipped: raw.length - items.length, resourceVersion: listRv });
}

function apply<T>(o: ReflectorOptions<T>, state: ReflectorState, event: WatchEvent): void {
  const rv = rvOf(event.object);
  if (event.type !== 'BOOKMARK') {
    const decoded = decode(o, event.object, `WATCH ${o.path} ${event.type}`);
    if (decoded.ok && event.type === 'DELETED') o.store.remove(decoded.item.key, decoded.item.object);
    else if (decoded.ok) o.store.upsert(decoded.item);
    // An invalid DELETED still removes what the store holds under its name (onDelete gets the last valid state).
    else if (event.type === 'DELETED' && decoded.key !== undefined) o.store.remove(decoded.key, undefined);
  }
  if (rv !== undefined) state.resourceVersion = rv;
}

/** One WATCH until the server ends it; true when it was healthy (an event, or a full-length run). */
async function watch<T>(o: ReflectorOptions<T>, state: ReflectorState): Promise<boolean> {
  const query = {
    allowWatchBookmarks: true,
    fieldSelector: o.fieldSelector,
    labelSelector: o.labelSelector,
    resourceVersion: state.resourceVersion,
    timeoutSeconds: Math.floor(MIN_WATCH_TIMEOUT_S * (1 + Math.min(o.random(), 0.999))),
  };
  const started = o.clock.now();
  let events = 0;
  for await (const event of o.client.watch(o.path, query, o.signal)) {
    if (events++ === 0) {
      o.backoff.reset(BACKOFF_KEY);
      o.setCurrent(true);
    }
    apply(o, state, event);
  }
  return events > 0 || o.clock.now() - started >= MIN_HEALTHY_WATCH_MS;
}

/** Runs until the signal aborts; never throws (every failure is logged and retried after back-off). */
export async function runReflector<T>(o: ReflectorOptions<T>): Promise<void> {
  const state: ReflectorState = { resourceVersion: '', lastSyncResourceVersion: '', lastSyncUnavailable: false, needList: true };
  while (!o.signal.aborted) {
    let failed = false;
    try {
      if (state.needList) {
        await list(o, state);
        state.needList = false;
      }
      if (await watch(o, state)) continue;
      failed = true;
      o.logger.debug('Watch ended at once without events', { resourceVersion: state.resourceVersion });
    } catch (err) {
      if (o.signal.aborted) return;
      failed = true;
      if (isResourceExpired(err)) {
        // A list from a too-old resourceVersion relists from the newest; a watch relists from the last list.
        if (state.needList) state.lastSyncUnavailable = true;
        state.needList = true;
        o.logger.info('Resource version too old, relisting', { resourceVersion: state.resourceVersion, err: errorMessage(err) });
      } else {
        o.logger.warn('List/watch failed, retrying after back-off', { resourceVersion: state.resourceVersion, err: errorMessage(err) });
      }
    }
    if (failed) {
      o.setCurrent(false);
      const delay = jitter(o.backoff.next(BACKOFF_KEY), 1.0, o.random);
      try {
        await o.clock.sleep(delay, o.signal);
      } catch {
        return;
      }
    }
  }
}
