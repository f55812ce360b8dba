import type { z } from 'zod';

/** A query parameter: undefined drops it; parameters are sent in sorted key order, as client-go does. */
export type QueryValue = string | number | boolean | undefined;
export type Query = Readonly<Record<string, QueryValue>>;

/** The patch formats of the API (the Content-Type decides how the server applies the body). */
export const PatchType = {
  /** `application/strategic-merge-patch+json`: lists merge by their patchMergeKey (the kubelet's default). */
  Strategic: 'strategic',
  /** `application/merge-patch+json` (RFC 7386): lists are replaced. */
  Merge: 'merge',
  /** `application/json-patch+json` (RFC 6902): the body is an array of operations. */
  JSON: 'json',
} as const;
export type PatchType = (typeof PatchType)[keyof typeof PatchType];

export const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  strategic: 'application/strategic-merge-patch+json',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  query?: Query;
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this request (0: none). */
  timeoutMs?: number;
  headers?: Readonly<Record<string, string>>;
}

/** A request whose response body is validated: the call resolves to the schema's output. */
export interface DecodeOptions<T> extends RequestOptions {
  schema: z.ZodType<T>;
}

export interface KubeRequest extends RequestOptions {
  method: HttpMethod;
  /** Absolute API path, e.g. `/api/v1/namespaces/default/pods/x`. */
  path: string;
  /** A JSON body (serialised with JSON.stringify). */
  body?: unknown;
  /** The body's Content-Type; `application/json` when there is a body. */
  contentType?: string;
}

export interface KubeResponse {
  statusCode: number;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The parsed JSON body (undefined for an empty one). */
  body: unknown;
}

/** One event of a watch stream; ERROR events never appear here (the iteration throws instead). */
export interface WatchEvent<T = unknown> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/** Counters of one client, for benchmarks and tests. */
export interface KubeClientStats {
  /** Requests sent, retries and watches included. */
  requests: number;
  /** Requests that waited on the client-side rate limiter. */
  rateLimited: number;
  /** Connections (TLS handshakes for https) opened, reconnects after closeAllConnections included. */
  connectionsOpened: number;
}

/**
 * The kubelet's REST client (client-go's rest.Interface in spirit): JSON requests by path, with the
 * client's rate limit, timeout, credentials and one keep-alive connection pool. Failures are
 * `KubeClientError`s carrying `statusCode` and `reason`.
 */
export interface KubeClient {
  readonly name: string;
  /** Any request; non-2xx responses throw API_STATUS. */
  request(request: KubeRequest): Promise<KubeResponse>;
  get(path: string, options?: RequestOptions): Promise<unknown>;
  get<T>(path: string, options: DecodeOptions<T>): Promise<T>;
  /** A GET of a collection (same as get; named for the verb). */
  list(path: string, options?: RequestOptions): Promise<unknown>;
  list<T>(path: string, options: DecodeOptions<T>): Promise<T>;
  /** POST `body` to the collection `path`. */
  create(path: string, body: unknown, options?: RequestOptions): Promise<unknown>;
  create<T>(path: string, body: unknown, options: DecodeOptions<T>): Promise<T>;
  /** PUT `body` to the object `path`. */
  update(path: string, body: unknown, options?: RequestOptions): Promise<unknown>;
  update<T>(path: string, body: unknown, options: DecodeOptions<T>): Promise<T>;
  /** PATCH with the Content-Type of `patchType` (default strategic merge). */
  patch(path: string, body: unknown, patchType?: PatchType, options?: RequestOptions): Promise<unknown>;
  patch<T>(path: string, body: unknown, patchType: PatchType, options: DecodeOptions<T>): Promise<T>;
  /** DELETE, with an optional DeleteOptions body (`gracePeriodSeconds`, `preconditions`). */
  delete(path: string, options?: RequestOptions & { body?: unknown }): Promise<unknown>;
  /**
   * Watches the collection `path` (`watch=true` is added to `query`) until the server ends the stream
   * (the iteration completes), the signal aborts (it completes too) or an error: a transport failure, a
   * non-200 answer or an ERROR event (a KubeClientError with the Status' `statusCode` and `reason`;
   * 410 Expired is `isResourceExpired`). BOOKMARK events are yielded: their object carries only
   * `metadata.resourceVersion`.
   */
  watch(path: string, query: Query, signal: AbortSignal): AsyncIterable<WatchEvent>;
  /** Closes every connection, watches included (they end with a TRANSPORT error); new requests reconnect. */
  closeAllConnections(): void;
  stats(): KubeClientStats;
}

/** What an informer tells its handlers (client-go's ResourceEventHandler). */
export interface InformerEventHandler<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** A list/watch cache of one kind of object (client-go's SharedInformer, trimmed to what the kubelet uses). */
export interface Informer<T> {
  /** Lists, then watches, until the signal aborts; restarts after every error with back-off. */
  start(signal: AbortSignal): void;
  /** True once the first list has been stored and its handlers called. */
  hasSynced(): boolean;
  /**
   * False from a failed list or watch until the next list is stored or the resumed watch delivers an
   * event (a bookmark counts): meanwhile the cache may be missing changes, so callers that must not act
   * on stale state (the node status heartbeat) ask the API server instead. False before the first list.
   */
  isCurrent(): boolean;
  /** Resolves once synced; rejects with the signal's reason when it aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  list(): T[];
  /** By key: "namespace/name", or "name" for cluster-scoped kinds (or the informer's `keyOf`). */
  get(key: string): T | undefined;
  /** Adds a handler; it first gets onAdd for every object already stored. Returns the unsubscribe. */
  addEventHandler(handler: InformerEventHandler<T>): () => void;
}
