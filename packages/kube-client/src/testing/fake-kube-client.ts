import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { KubeClientError } from '../errors.js';
import { decodeWith } from '../internal/http.js';
import type {
  HttpMethod,
  KubeClient,
  KubeClientStats,
  KubeRequest,
  KubeResponse,
  PatchType,
  Query,
  RequestOptions,
  WatchEvent,
} from '../types.js';
import type { ApiPath, JsonObject } from './fake-objects.js';
import {
  apiError,
  jsonPatch,
  matchesFieldSelector,
  matchesLabelSelector,
  mergePatch,
  metaOf,
  objectPath,
  parseApiPath,
} from './fake-objects.js';

export interface FakeKubeCall {
  method: HttpMethod | 'WATCH';
  path: string;
  query: Query | undefined;
  body?: unknown;
  patchType?: PatchType;
}

/** A scripted failure: the next `times` calls that match throw `error`. */
export interface FakeFailure {
  method?: HttpMethod | 'WATCH';
  /** An exact path, or a pattern. */
  path?: string | RegExp;
  error: unknown;
  times?: number;
}

/** An event to push into open watches: ERROR carries a metav1.Status and ends them with that error. */
export type FakeWatchEvent = WatchEvent | { type: 'ERROR'; object: JsonObject };

interface OpenWatch {
  api: ApiPath;
  query: Query;
  push(event: FakeWatchEvent): void;
  end(error?: unknown): void;
}

const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/**
 * An in-memory API server behind the KubeClient interface, for unit tests: objects by path, lists and
 * watches by collection path with field and label selectors, create/update/patch/delete with
 * AlreadyExists, NotFound, resourceVersion and UID-precondition Conflicts (all as KubeClientErrors that
 * @kubelet-ts/api's isNotFound & co. classify), every call recorded in `calls`, scripted failures, and
 * watches that see every write and what `emit` pushes. Patches are merge patches (strategic merge list
 * keys are not honoured; a JSON-patch with an object body is a 400 as on the real server); `…/status`
 * writes go to the object itself; deletion is immediate (no graceful deletion).
 */
export class FakeKubeClient implements KubeClient {
  readonly name: string;
  readonly calls: FakeKubeCall[] = [];
  readonly #objects = new Map<string, JsonObject>();
  readonly #failures: (FakeFailure & { times: number })[] = [];
  readonly #watches = new Set<OpenWatch>();
  #resourceVersion = 1;
  #closed = 0;

  constructor(options: { name?: string } = {}) {
    this.name = options.name ?? 'fake';
  }

  /** Stores an object at `path` as given (a resourceVersion is set when it has none), without events. */
  set(path: string, obj: unknown): void {
    const copy = clone(obj) as JsonObject;
    const meta = { ...metaOf(copy) };
    if (meta.resourceVersion === undefined) meta.resourceVersion = String(++this.#resourceVersion);
    this.#objects.set(path, { ...copy, metadata: meta });
  }

  /** A copy of the object at `path`. */
  object(path: string): unknown {
    return clone(this.#objects.get(path));
  }

  /** Every stored path. */
  paths(): string[] {
    return [...this.#objects.keys()].sort();
  }

  fail(failure: FakeFailure): void {
    this.#failures.push({ ...failure, times: failure.times ?? 1 });
  }

  /** Pushes an event into the open watches of the collection `path` whose selectors match the object. */
  emit(path: string, event: FakeWatchEvent): void {
    const api = parseApiPath(path);
    if (api === undefined) throw new Error(`FakeKubeClient.emit: not an API path: ${path}`);
    const selected = event.type === 'ERROR' || event.type === 'BOOKMARK' ? undefined : event.object;
    for (const w of this.#watches) if (this.#watchSees(w, api, selected)) w.push(clone(event));
  }

  /** Ends open watches (of `path`, or all): cleanly, or with `error`. */
  endWatches(path?: string, error?: unknown): void {
    for (const w of [...this.#watches]) if (path === undefined || this.#sameCollection(w.api, parseApiPath(path))) w.end(error);
  }

  openWatches(path?: string): number {
    return [...this.#watches].filter((w) => path === undefined || this.#sameCollection(w.api, parseApiPath(path))).length;
  }

  /** How often closeAllConnections was called. */
  get closedConnections(): number {
    return this.#closed;
  }

  async request(r: KubeRequest): Promise<KubeResponse> {
    const o = { ...(r.query !== undefined ? { query: r.query } : {}) };
    const body =
      r.method === 'GET'
        ? await this.get(r.path, o)
        : r.method === 'POST'
          ? await this.create(r.path, r.body, o)
          : r.method === 'PUT'
            ? await this.update(r.path, r.body, o)
            : r.method === 'PATCH'
              ? await this.patch(
                  r.path,
                  r.body,
                  r.contentType?.includes('json-patch') ? 'json' : r.contentType?.includes('merge-patch') ? 'merge' : 'strategic',
                  o,
                )
              : await this.delete(r.path, { ...o, body: r.body });
    return { statusCode: 200, headers: {}, body };
  }

  get<T>(path: string, options?: RequestOptions & { schema?: z.ZodType<T> }): Promise<T> {
    return this.#run('GET', path, options, undefined, () => {
      const obj = this.#objects.get(path);
      if (obj !== undefined) return clone(obj);
      const api = parseApiPath(path);
      if (api !== undefined && api.name === undefined) return this.#list(api, options?.query);
      throw apiError(404, 'NotFound', `${api?.resource ?? 'object'} "${api?.name ?? path}" not found`);
    });
  }

  list<T>(path: string, options?: RequestOptions & { schema?: z.ZodType<T> }): Promise<T> {
    return this.get(path, options);
  }

  create<T>(path: string, body: unknown, options?: RequestOptions & { schema?: z.ZodType<T> }): Promise<T> {
    return this.#run('POST', path, options, { body }, () => {
      const api = parseApiPath(path);
      if (api === undefined) throw apiError(404, 'NotFound', `the server could not find the requested resource (${path})`);
      const meta = { ...metaOf(body) };
      if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
        throw apiError(400, 'BadRequest', 'resourceVersion should not be set on objects to be created');
      }
      let name = typeof meta.name === 'string' ? meta.name : '';
      if (name === '' && typeof meta.generateName === 'string') name = `${meta.generateName}${randomUUID().slice(0, 5)}`;
      if (name === '') throw apiError(422, 'Invalid', 'metadata.name: Required value');
      const target = objectPath(api, name);
      if (this.#objects.has(target)) throw apiError(409, 'AlreadyExists', `${api.resource} "${name}" already exists`);
      const obj = this.#store(target, {
        ...(body as JsonObject),
        metadata: { ...meta, name, ...(api.namespace !== undefined ? { namespace: api.namespace } : {}), uid: randomUUID() },
      });
      this.#notify(api, 'ADDED', obj);
      return clone(obj);
    });
  }

  update<T>(path: string, body: unknown, options?: RequestOptions & { schema?: z.ZodType<T> }): Promise<T> {
    return this.#run('PUT', path, options, { body }, () => {
      const { target, current, api } = this.#existing(path);
      const rv = metaOf(body).resourceVersion;
      if (rv !== undefined && rv !== '' && rv !== metaOf(current).resourceVersion) {
        throw apiError(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${api.resource} "${api.name ?? ''}": the object has been modified; please apply your changes to the latest version and try again`,
        );
      }
      const obj = this.#store(target, { ...(body as JsonObject), metadata: { ...metaOf(body), uid: metaOf(current).uid } });
      this.#notify(api, 'MODIFIED', obj, current);
      return clone(obj);
    });
  }

  patch<T>(
    path: string,
    body: unknown,
    patchType: PatchType = 'strategic',
    options?: RequestOptions & { schema?: z.ZodType<T> },
  ): Promise<T> {
    return this.#run('PATCH', path, options, { body, patchType }, () => {
      const { target, current, api } = this.#existing(path);
      let next: unknown;
      if (patchType === 'json') next = jsonPatch(current, body);
      else {
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw apiError(400, 'BadRequest', 'the patch must be a JSON object');
        const uid = metaOf(body).uid;
        if (uid !== undefined && uid !== metaOf(current).uid) {
          throw apiError(
            409,
            'Conflict',
            `Operation cannot be fulfilled on ${api.resource} "${api.name ?? ''}": Precondition failed: UID in precondition: ${String(uid)}, UID in object meta: ${String(metaOf(current).uid)}`,
          );
        }
        next = mergePatch(current, body);
      }
      if (JSON.stringify(next) === JSON.stringify(current)) return clone(current);
      const obj = this.#store(target, next as JsonObject);
      this.#notify(api, 'MODIFIED', obj, current);
      return clone(obj);
    });
  }

  delete(path: string, options?: RequestOptions & { body?: unknown }): Promise<unknown> {
    return this.#run('DELETE', path, options, { body: options?.body }, () => {
      const { target, current, api } = this.#existing(path);
      const uid = (options?.body as { preconditions?: { uid?: unknown } } | undefined)?.preconditions?.uid;
      if (uid !== undefined && uid !== metaOf(current).uid) {
        throw apiError(
          409,
          'Conflict',
          `Precondition failed: UID in precondition: ${String(uid)}, UID in object meta: ${String(metaOf(current).uid)}`,
        );
      }
      this.#objects.delete(target);
      const gone = { ...current, metadata: { ...metaOf(current), resourceVersion: String(++this.#resourceVersion) } };
      this.#notify(api, 'DELETED', gone);
      return clone(gone);
    });
  }

  watch(path: string, query: Query, signal: AbortSignal): AsyncIterable<WatchEvent> {
    this.calls.push({ method: 'WATCH', path, query });
    const failure = this.#takeFailure('WATCH', path);
    const api = parseApiPath(path);
    const watches = this.#watches;
    return {
      [Symbol.asyncIterator]: async function* () {
        if (failure !== undefined) throw failure.error;
        if (api === undefined) throw apiError(404, 'NotFound', `the server could not find the requested resource (${path})`);
        const queue: FakeWatchEvent[] = [];
        let ended: { error?: unknown } | undefined;
        let wake: (() => void) | undefined;
        const w: OpenWatch = {
          api,
          query,
          push: (e) => (queue.push(e), wake?.()),
          end: (error) => ((ended = error === undefined ? {} : { error }), wake?.()),
        };
        watches.add(w);
        const onAbort = (): void => w.end();
        signal.addEventListener('abort', onAbort, { once: true });
        try {
          for (;;) {
            const event = queue.shift();
            if (event !== undefined) {
              if (event.type === 'ERROR')
                throw apiError(
                  Number(event.object.code ?? 500),
                  String(event.object.reason ?? ''),
                  String(event.object.message ?? 'watch error'),
                );
              yield event;
              continue;
            }
            if (ended !== undefined) {
              if (ended.error !== undefined && !signal.aborted) throw ended.error;
              return;
            }
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
          }
        } finally {
          watches.delete(w);
          signal.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  closeAllConnections(): void {
    this.#closed++;
    this.endWatches(undefined, new KubeClientError('TRANSPORT', 'connection closed (FakeKubeClient.closeAllConnections)'));
  }

  stats(): KubeClientStats {
    return { requests: this.calls.length, rateLimited: 0, connectionsOpened: 1 + this.#closed };
  }

  async #run<T>(
    method: HttpMethod,
    path: string,
    options: (RequestOptions & { schema?: z.ZodType<T> }) | undefined,
    extra: Partial<FakeKubeCall> | undefined,
    fn: () => unknown,
  ): Promise<T> {
    this.calls.push({ method, path, query: options?.query, ...clone(extra) });
    await Promise.resolve();
    options?.signal?.throwIfAborted();
    const failure = this.#takeFailure(method, path);
    if (failure !== undefined) throw failure.error;
    const result = fn();
    return options?.schema === undefined ? (result as T) : decodeWith(`${method} ${path}`, options.schema, result);
  }

  #takeFailure(method: HttpMethod | 'WATCH', path: string): FakeFailure | undefined {
    const index = this.#failures.findIndex(
      (f) =>
        (f.method === undefined || f.method === method) &&
        (f.path === undefined || (typeof f.path === 'string' ? f.path === path : f.path.test(path))),
    );
    if (index < 0) return undefined;
    const failure = this.#failures[index];
    if (failure === undefined) return undefined;
    if (--failure.times <= 0) this.#failures.splice(index, 1);
    return failure;
  }

  /** The stored object a write targets; `…/status` (any subresource) writes to the object itself. */
  #existing(path: string): { target: string; current: JsonObject; api: ApiPath } {
    const api = parseApiPath(path);
    const target = api?.name === undefined ? path : objectPath(api, api.name);
    const current = this.#objects.get(target);
    if (api === undefined || current === undefined)
      throw apiError(404, 'NotFound', `${api?.resource ?? 'object'} "${api?.name ?? path}" not found`);
    return { target, current, api };
  }

  #store(target: string, obj: JsonObject): JsonObject {
    const stored = { ...obj, metadata: { ...metaOf(obj), resourceVersion: String(++this.#resourceVersion) } };
    this.#objects.set(target, stored);
    return stored;
  }

  #list(api: ApiPath, query: Query | undefined): JsonObject {
    const field = typeof query?.fieldSelector === 'string' ? query.fieldSelector : undefined;
    const label = typeof query?.labelSelector === 'string' ? query.labelSelector : undefined;
    const items = [...this.#objects.entries()]
      .filter(
        ([p, obj]) => this.#sameCollection(api, parseApiPath(p)) && matchesFieldSelector(obj, field) && matchesLabelSelector(obj, label),
      )
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, obj]) => clone(obj));
    return { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: String(this.#resourceVersion) }, items };
  }

  /** `collection` lists `item`: same group/version and resource, and namespace unless listing all namespaces. */
  #sameCollection(collection: ApiPath | undefined, item: ApiPath | undefined): boolean {
    if (collection === undefined || item === undefined) return false;
    return (
      collection.prefix === item.prefix &&
      collection.resource === item.resource &&
      (collection.namespace === undefined || collection.namespace === item.namespace)
    );
  }

  #watchSees(w: OpenWatch, api: ApiPath, obj: unknown): boolean {
    const field = typeof w.query.fieldSelector === 'string' ? w.query.fieldSelector : undefined;
    const label = typeof w.query.labelSelector === 'string' ? w.query.labelSelector : undefined;
    return (
      this.#sameCollection(w.api, api) && (obj === undefined || (matchesFieldSelector(obj, field) && matchesLabelSelector(obj, label)))
    );
  }

  /** As the watch cache does: an object entering a watch's selectors is ADDED there, one leaving it DELETED (its previous state, the new resourceVersion). */
  #notify(api: ApiPath, type: WatchEvent['type'], obj: JsonObject, previous?: JsonObject): void {
    const collection: ApiPath = { ...api, name: undefined, subresource: undefined };
    for (const w of this.#watches) {
      const now = this.#watchSees(w, collection, obj);
      const before = previous !== undefined && this.#watchSees(w, collection, previous);
      if (type !== 'MODIFIED' || (now && before)) {
        if (now) w.push({ type, object: clone(obj) });
      } else if (now) w.push({ type: 'ADDED', object: clone(obj) });
      else if (before)
        w.push({
          type: 'DELETED',
          object: { ...clone(previous), metadata: { ...metaOf(previous), resourceVersion: metaOf(obj).resourceVersion } },
        });
    }
  }
}
