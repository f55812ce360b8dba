// The REST client over a Transport: the verbs, response schemas and watches on top of the sender.
import type { Logger } from '@kubelet-ts/common';
import type {
  DecodeOptions,
  HttpMethod,
  KubeClient,
  KubeClientStats,
  KubeRequest,
  PatchType,
  Query,
  RequestOptions,
  WatchEvent,
} from '../types.js';
import { PATCH_CONTENT_TYPES } from '../types.js';
import { decodeWith } from './http.js';
import type { Send } from './send.js';
import { createSender } from './sender.js';
import type { SenderOptions } from './sender.js';
import type { Transport } from './transport.js';
import { watchEvents } from './watch-stream.js';

export interface RestClientOptions extends SenderOptions {
  logger: Logger;
  /** The client's deadline of each non-watch request; undefined: none. */
  timeoutMs: number | undefined;
}

/** A watch whose server-side timeoutSeconds passed this long ago without the stream ending is dead (half-open). */
const WATCH_DEADLINE_GRACE_MS = 30_000;

export function createRestClient(transport: Transport, options: RestClientOptions): KubeClient {
  const sender = createSender(transport, options);

  const toSend = (method: HttpMethod, path: string, body: unknown, contentType: string | undefined, o: RequestOptions = {}): Send => {
    const timeoutMs = o.timeoutMs ?? options.timeoutMs;
    return {
      method,
      path,
      query: o.query,
      body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      contentType,
      signal: o.signal,
      headers: o.headers,
      deadlineMs: timeoutMs === undefined || timeoutMs <= 0 ? undefined : timeoutMs,
      timeoutParam: true,
    };
  };

  const call = async (
    method: HttpMethod,
    path: string,
    body: unknown,
    contentType: string | undefined,
    o?: RequestOptions,
  ): Promise<unknown> => {
    const response = await sender.exchange(toSend(method, path, body, contentType, o));
    const schema = (o as Partial<DecodeOptions<unknown>> | undefined)?.schema;
    return schema === undefined ? response.body : decodeWith(`${method} ${path}`, schema, response.body);
  };

  const watch = (path: string, query: Query, signal: AbortSignal): AsyncIterable<WatchEvent> => {
    const seconds = Number(query.timeoutSeconds ?? NaN);
    const s: Send = {
      method: 'GET',
      path,
      query: { ...query, watch: 'true' },
      body: undefined,
      contentType: undefined,
      signal,
      headers: undefined,
      deadlineMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 + WATCH_DEADLINE_GRACE_MS : undefined,
      // client-go sends no ?timeout= on watches: timeoutSeconds bounds them.
      timeoutParam: false,
    };
    return watchEvents(s, sender.send, sender.failure);
  };

  const client = {
    name: options.name,
    request: (r: KubeRequest) => sender.exchange(toSend(r.method, r.path, r.body, r.contentType, r)),
    get: (path: string, o?: RequestOptions) => call('GET', path, undefined, undefined, o),
    list: (path: string, o?: RequestOptions) => call('GET', path, undefined, undefined, o),
    create: (path: string, body: unknown, o?: RequestOptions) => call('POST', path, body, undefined, o),
    update: (path: string, body: unknown, o?: RequestOptions) => call('PUT', path, body, undefined, o),
    patch: (path: string, body: unknown, patchType: PatchType = 'strategic', o?: RequestOptions) =>
      call('PATCH', path, body, PATCH_CONTENT_TYPES[patchType], o),
    delete: (path: string, o?: RequestOptions & { body?: unknown }) => call('DELETE', path, o?.body, undefined, o),
    watch,
    closeAllConnections: () => {
      options.logger.info('Closing all connections to the API server', {});
      transport.closeAll();
    },
    stats: (): KubeClientStats => ({ ...sender.stats, connectionsOpened: transport.connectionsOpened() }),
  };
  return client as KubeClient;
}
