// Sending one request: rate limit, deadline, the reused-connection retry, 429 retries, metrics, errors.
import type { Clock, Logger, Metrics, TokenBucket } from '@kubelet-ts/common';
import { formatGoDuration } from '@kubelet-ts/common';
import { KubeClientError } from '../errors.js';
import type { HttpMethod, KubeResponse } from '../types.js';
import { encodeQuery, parseBody, retryAfterSeconds, statusError } from './http.js';
import type { Send, Sent } from './send.js';
import type { Transport } from './transport.js';
import { SendError } from './transport.js';

export interface SenderOptions {
  name: string;
  /** host[:port] of the server, for metric labels. */
  host: string;
  userAgent: string;
  limiter: Pick<TokenBucket, 'wait'>;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  /** Retries of a 429 with Retry-After (client-go: 10). */
  maxRetries: number;
}

export interface Sender {
  /** The response head (the caller reads the body, then calls `done`). */
  send(s: Send): Promise<Sent>;
  /** A whole exchange: the body read and parsed; non-2xx throws API_STATUS. */
  exchange(s: Send): Promise<KubeResponse>;
  /** What an error thrown while sending or reading becomes (TIMEOUT, the caller's abort reason, TRANSPORT). */
  failure(s: Send, err: unknown, timedOut: boolean): unknown;
  readonly stats: { requests: number; rateLimited: number };
}

/** Reconnect-safe methods: a request that failed on a reused keep-alive connection is sent again. */
const RETRY_ON_REUSED = new Set<HttpMethod>(['GET', 'PUT', 'PATCH', 'DELETE']);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

const what = (s: Send): string => `${s.method} ${s.path}`;

/** component-base restclient's buckets of rest_client_request_duration_seconds and rest_client_rate_limiter_duration_seconds. */
const REQUEST_LATENCY_BUCKETS: readonly number[] = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

function requestMetrics(metrics: Metrics, host: string) {
  const requestsTotal = metrics.counter<'code' | 'host' | 'method'>({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'host', 'method'],
  });
  const latency = metrics.histogram<'verb' | 'host'>({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: REQUEST_LATENCY_BUCKETS,
  });
  const limiterLatency = metrics.histogram<'verb' | 'host'>({
    name: 'rest_client_rate_limiter_duration_seconds',
    help: 'Client side rate limiter latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: REQUEST_LATENCY_BUCKETS,
  });
  return {
    waited: (verb: string, ms: number) => limiterLatency.observe({ verb, host }, ms / 1000),
    answered: (method: string, code: string, seconds?: number) => {
      requestsTotal.inc({ code, method, host });
      if (seconds !== undefined) latency.observe({ verb: method, host }, seconds);
    },
  };
}

export function createSender(transport: Transport, options: SenderOptions): Sender {
  const { clock, logger } = options;
  const recorded = requestMetrics(options.metrics, options.host);
  const stats = { requests: 0, rateLimited: 0 };

  const attempt = async (s: Send, url: string): Promise<Sent> => {
    const waited = await options.limiter.wait(s.signal);
    recorded.waited(s.method, waited);
    if (waited > 0) {
      stats.rateLimited++;
      logger.debug('Waited on the client-side rate limiter', { verb: s.method, path: s.path, waitedMs: waited });
    }
    stats.requests++;
    const deadline = new AbortController();
    const timer = s.deadlineMs === undefined ? undefined : clock.setTimeout(() => deadline.abort(), s.deadlineMs);
    const signal = s.signal === undefined ? deadline.signal : AbortSignal.any([s.signal, deadline.signal]);
    const done = (): void => {
      if (timer !== undefined) clock.clearTimeout(timer);
    };
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent, ...s.headers };
    if (s.body !== undefined) headers['content-type'] = s.contentType ?? 'application/json';
    const started = clock.now();
    try {
      const response = await transport.send({
        method: s.method,
        path: url,
        headers,
        ...(s.body !== undefined ? { body: s.body } : {}),
        signal,
      });
      recorded.answered(s.method, String(response.statusCode), (clock.now() - started) / 1000);
      return { response, signal, timedOut: () => deadline.signal.aborted, done };
    } catch (err) {
      done();
      recorded.answered(s.method, '<error>');
      throw err;
    }
  };

  const failure = (s: Send, err: unknown, timedOut: boolean): unknown => {
    if (KubeClientError.is(err)) return err;
    if (timedOut) return new KubeClientError('TIMEOUT', `${what(s)}: no answer within ${s.deadlineMs} ms`, { cause: err });
    if (s.signal?.aborted) return s.signal.reason as unknown;
    const cause = err instanceof SendError ? err.cause : err;
    return new KubeClientError('TRANSPORT', `${what(s)}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  };

  const resetOnReusedConnection = (s: Send, err: unknown): boolean => {
    if (!(err instanceof SendError) || !err.reusedSocket || !RETRY_ON_REUSED.has(s.method)) return false;
    const code = (err.cause as NodeJS.ErrnoException).code;
    return code !== undefined && RESET_CODES.has(code);
  };

  const send = async (s: Send): Promise<Sent> => {
    const timeout = s.timeoutParam && s.deadlineMs !== undefined ? { timeout: formatGoDuration(s.deadlineMs) } : {};
    const url = s.path + encodeQuery({ ...s.query, ...timeout });
    for (let retries = 0, resets = 0; ;) {
      let sent: Sent;
      try {
        sent = await attempt(s, url);
      } catch (err) {
        if (resets === 0 && resetOnReusedConnection(s, err)) {
          resets++;
          logger.debug('Connection reset on a reused connection, retrying', { verb: s.method, path: s.path });
          continue;
        }
        throw failure(s, err, false);
      }
      const after = retryAfterSeconds(sent.response.headers['retry-after']);
      if (sent.response.statusCode !== 429 || after === undefined || retries >= options.maxRetries) return sent;
      retries++;
      sent.response.destroy();
      sent.done();
      logger.debug('Throttled by the API server, retrying', { verb: s.method, path: s.path, retryAfterSeconds: after });
      await clock.sleep(after * 1000, s.signal);
    }
  };

  const exchange = async (s: Send): Promise<KubeResponse> => {
    const sent = await send(s);
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of sent.response.body) chunks.push(chunk);
    } catch (err) {
      throw failure(s, err, sent.timedOut());
    } finally {
      sent.done();
    }
    const body = parseBody(Buffer.concat(chunks));
    const { statusCode, headers } = sent.response;
    if (statusCode < 200 || statusCode > 299) throw statusError(what(s), statusCode, body, retryAfterSeconds(headers['retry-after']));
    if (typeof body === 'string') throw new KubeClientError('DECODE', `${what(s)}: response is not JSON: ${body.slice(0, 200)}`);
    return { statusCode, headers, body };
  };

  return { send, exchange, failure, stats };
}
