import { isAlreadyExists, isConflict, isNotFound, isResourceExpired } from '@kubelet-ts/api';
import { createTokenBucket, noopLogger } from '@kubelet-ts/common';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { z } from 'zod';
import { KubeClientError } from '../errors.js';
import type { WatchEvent } from '../types.js';
import { createRestClient } from './rest-client.js';
import type { Transport, TransportRequest, TransportResponse } from './transport.js';
import { SendError } from './transport.js';

interface Scripted {
  statusCode?: number;
  headers?: Record<string, string>;
  /** Body chunks; a function is called when reached (to fail the stream or wait). */
  chunks?: (string | ((signal: AbortSignal) => Promise<void>))[];
  error?: Error;
}

class ScriptedTransport implements Transport {
  readonly requests: TransportRequest[] = [];
  readonly script: (Scripted | ((r: TransportRequest) => Promise<Scripted>))[] = [];
  closed = 0;

  send(request: TransportRequest): Promise<TransportResponse> {
    this.requests.push(request);
    const next = this.script.shift() ?? { statusCode: 200, chunks: ['{}'] };
    return (typeof next === 'function' ? next(request) : Promise.resolve(next)).then((s) => {
      if (s.error !== undefined) throw s.error;
      const chunks = s.chunks ?? [];
      let destroyed = false;
      return {
        statusCode: s.statusCode ?? 200,
        headers: s.headers ?? {},
        body: (async function* () {
          for (const c of chunks) {
            if (destroyed || request.signal.aborted) throw new Error('aborted');
            if (typeof c === 'function') await c(request.signal);
            else yield Buffer.from(c);
          }
        })(),
        destroy: () => {
          destroyed = true;
        },
      };
    });
  }

  closeAll(): void {
    this.closed++;
  }

  connectionsOpened(): number {
    return 1;
  }
}

/** A body that stalls until the request is aborted, as a socket does. */
const hang = (signal: AbortSignal): Promise<void> =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

const status = (code: number, reason: string, message = 'm'): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

function setup(options: { timeoutMs?: number; qps?: number; burst?: number } = {}) {
  const clock = new FakeClock();
  const transport = new ScriptedTransport();
  const metrics = new RecordingMetrics();
  const client = createRestClient(transport, {
    name: 'test',
    host: 'api:6443',
    userAgent: 'kubelet-ts/test',
    timeoutMs: options.timeoutMs,
    limiter: createTokenBucket({ qps: options.qps ?? -1, burst: options.burst ?? 0, clock }),
    clock,
    logger: noopLogger,
    metrics,
    maxRetries: 10,
  });
  return { clock, transport, client, metrics };
}

async function collect(events: AsyncIterable<WatchEvent>): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

describe('REST client', () => {
  it('sends sorted query parameters, JSON headers and ?timeout= from the client timeout', async () => {
    const { client, transport } = setup({ timeoutMs: 10_000 });
    transport.script.push({ chunks: ['{"kind":"Lease"}'] });
    await expect(
      client.get('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n', { query: { b: 'x y', a: 1, skip: undefined } }),
    ).resolves.toEqual({
      kind: 'Lease',
    });
    const [req] = transport.requests;
    expect(req?.path).toBe('/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n?a=1&b=x%20y&timeout=10s');
    expect(req?.headers).toMatchObject({ accept: 'application/json', 'user-agent': 'kubelet-ts/test' });
  });

  it('gives each patch type its Content-Type, strategic merge by default', async () => {
    const { client, transport } = setup();
    await client.patch('/api/v1/nodes/n/status', { status: {} });
    await client.patch('/api/v1/nodes/n', { metadata: {} }, 'merge');
    await client.patch('/api/v1/nodes/n', [{ op: 'add', path: '/x', value: 1 }], 'json');
    await client.create('/api/v1/namespaces/default/events', { kind: 'Event' });
    expect(transport.requests.map((r) => [r.method, r.headers['content-type']])).toEqual([
      ['PATCH', 'application/strategic-merge-patch+json'],
      ['PATCH', 'application/merge-patch+json'],
      ['PATCH', 'application/json-patch+json'],
      ['POST', 'application/json'],
    ]);
    expect(transport.requests[0]?.body?.toString()).toBe('{"status":{}}');
  });

  it('turns a Status body into a KubeClientError that api classifies', async () => {
    const { client, transport } = setup();
    transport.script.push(
      { statusCode: 404, chunks: [status(404, 'NotFound', 'pods "x" not found')] },
      { statusCode: 409, chunks: [status(409, 'AlreadyExists')] },
      { statusCode: 409, chunks: [status(409, 'Conflict')] },
      { statusCode: 409, chunks: ['not json'] },
    );
    const notFound = await client.get('/api/v1/namespaces/d/pods/x').catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(KubeClientError);
    expect(notFound).toMatchObject({ code: 'API_STATUS', statusCode: 404, reason: 'NotFound' });
    expect((notFound as Error).message).toBe('GET /api/v1/namespaces/d/pods/x: pods "x" not found (404 NotFound)');
    expect(isNotFound(notFound)).toBe(true);
    const exists = await client.create('/api/v1/nodes', {}).catch((e: unknown) => e);
    expect([isAlreadyExists(exists), isConflict(exists)]).toEqual([true, false]);
    const conflict = await client.update('/api/v1/nodes/n', {}).catch((e: unknown) => e);
    expect([isAlreadyExists(conflict), isConflict(conflict)]).toEqual([false, true]);
    // No Status body: the reason comes from the code, as client-go does.
    const bare = await client.update('/api/v1/nodes/n', {}).catch((e: unknown) => e);
    expect(bare).toMatchObject({ statusCode: 409, reason: 'Conflict' });
  });

  it('validates a body with the caller schema (DECODE naming the field)', async () => {
    const { client, transport } = setup();
    transport.script.push({ chunks: ['{"spec":{"holderIdentity":5}}'] });
    const schema = z.object({ spec: z.object({ holderIdentity: z.string() }) });
    await expect(client.get('/lease', { schema })).rejects.toMatchObject({
      code: 'DECODE',
      message: expect.stringContaining('spec.holderIdentity'),
    });
    transport.script.push({ chunks: ['{"spec":{"holderIdentity":"n"}}'] });
    await expect(client.get('/lease', { schema })).resolves.toEqual({ spec: { holderIdentity: 'n' } });
  });

  it('times out locally with TIMEOUT', async () => {
    const { client, transport, clock } = setup({ timeoutMs: 10_000 });
    transport.script.push({ chunks: [hang] });
    const result = client.get('/api/v1/nodes/n').catch((e: unknown) => e);
    await clock.advance(10_000);
    expect(await result).toMatchObject({ code: 'TIMEOUT', statusCode: 0 });
  });

  it('retries a 429 after its Retry-After, on the clock', async () => {
    const { client, transport, clock } = setup();
    transport.script.push(
      { statusCode: 429, headers: { 'retry-after': '2' }, chunks: [status(429, 'TooManyRequests')] },
      { chunks: ['{"ok":true}'] },
    );
    const result = client.get('/x');
    await clock.advance(1999);
    expect(transport.requests).toHaveLength(1);
    await clock.advance(1);
    await expect(result).resolves.toEqual({ ok: true });
    expect(transport.requests).toHaveLength(2);
  });

  it('sends an idempotent request again when a reused keep-alive connection was reset, once', async () => {
    const { client, transport } = setup();
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    transport.script.push({ error: new SendError(reset, true) }, { chunks: ['{"ok":1}'] });
    await expect(client.get('/x')).resolves.toEqual({ ok: 1 });
    transport.script.push({ error: new SendError(reset, true) });
    await expect(client.create('/x', {})).rejects.toMatchObject({ code: 'TRANSPORT', message: 'POST /x: read ECONNRESET' });
    transport.script.push({ error: new SendError(reset, false) });
    await expect(client.get('/x')).rejects.toMatchObject({ code: 'TRANSPORT' });
  });

  it('counts requests that waited on the rate limiter', async () => {
    const { client, transport, clock, metrics } = setup({ qps: 1, burst: 2 });
    const calls = [client.get('/a'), client.get('/b'), client.get('/c')];
    await clock.advance(0);
    expect(transport.requests).toHaveLength(2);
    await clock.advance(1000);
    await Promise.all(calls);
    expect(client.stats()).toMatchObject({ requests: 3, rateLimited: 1 });
    expect(metrics.observations('rest_client_rate_limiter_duration_seconds', { verb: 'GET', host: 'api:6443' })).toEqual([0, 0, 1]);
    expect(metrics.value('rest_client_requests_total', { code: '200', method: 'GET', host: 'api:6443' })).toBe(3);
    // component-base restclient's buckets, not prometheus.DefBuckets.
    expect(metrics.buckets('rest_client_request_duration_seconds')).toEqual([0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]);
    expect(metrics.buckets('rest_client_rate_limiter_duration_seconds')).toEqual([0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]);
  });
});

describe('watch', () => {
  const line = (type: string, rv: string, name = 'p'): string =>
    `${JSON.stringify({ type, object: { kind: 'Pod', metadata: { name, resourceVersion: rv } } })}\n`;

  it('frames events split across chunks and yields BOOKMARKs', async () => {
    const { client, transport } = setup({ timeoutMs: 10_000 });
    const stream = line('ADDED', '5') + line('MODIFIED', '6') + line('BOOKMARK', '9', '');
    transport.script.push({ chunks: [stream.slice(0, 10), stream.slice(10, 80), stream.slice(80)] });
    const events = await collect(client.watch('/api/v1/pods', { resourceVersion: '4', timeoutSeconds: 300 }, new AbortController().signal));
    expect(events.map((e) => [e.type, (e.object as { metadata: { resourceVersion: string } }).metadata.resourceVersion])).toEqual([
      ['ADDED', '5'],
      ['MODIFIED', '6'],
      ['BOOKMARK', '9'],
    ]);
    // No ?timeout= on a watch: timeoutSeconds bounds it.
    expect(transport.requests[0]?.path).toBe('/api/v1/pods?resourceVersion=4&timeoutSeconds=300&watch=true');
  });

  it('turns an ERROR event into an error with the Status code and reason (410 → isResourceExpired)', async () => {
    const { client, transport } = setup();
    const error = { type: 'ERROR', object: JSON.parse(status(410, 'Expired', 'too old resource version: 1 (50)')) as unknown };
    transport.script.push({ chunks: [line('ADDED', '5'), `${JSON.stringify(error)}\n`] });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const e of client.watch('/api/v1/pods', {}, new AbortController().signal)) seen.push(e.type);
    })().catch((e: unknown) => e);
    expect(seen).toEqual(['ADDED']);
    expect(err).toMatchObject({ code: 'API_STATUS', statusCode: 410, reason: 'Expired' });
    expect(isResourceExpired(err)).toBe(true);
  });

  it('fails with WATCH_DECODE on a line that is not a watch event', async () => {
    const { client, transport } = setup();
    transport.script.push({ chunks: ['{"type":"ADDED","object":{}}\n{not json\n'] });
    await expect(collect(client.watch('/api/v1/pods', {}, new AbortController().signal))).rejects.toMatchObject({ code: 'WATCH_DECODE' });
  });

  it('fails with the status of a non-200 answer', async () => {
    const { client, transport } = setup();
    transport.script.push({ statusCode: 403, chunks: [status(403, 'Forbidden')] });
    await expect(collect(client.watch('/api/v1/secrets', {}, new AbortController().signal))).rejects.toMatchObject({
      statusCode: 403,
      reason: 'Forbidden',
    });
  });

  it('ends quietly when its signal aborts', async () => {
    const { client, transport } = setup();
    const controller = new AbortController();
    let release = (): void => undefined;
    transport.script.push({ chunks: [line('ADDED', '5'), () => new Promise<void>((r) => (release = r)), line('ADDED', '6')] });
    const seen: string[] = [];
    const done = (async () => {
      for await (const e of client.watch('/api/v1/pods', {}, controller.signal)) {
        seen.push(e.type);
        controller.abort();
        release();
      }
    })();
    await expect(done).resolves.toBeUndefined();
    expect(seen).toEqual(['ADDED']);
  });

  it('gives up on a watch the server should have ended long ago (half-open connection)', async () => {
    const { client, transport, clock } = setup();
    transport.script.push({ chunks: [line('ADDED', '5'), hang] });
    const result = collect(client.watch('/api/v1/pods', { timeoutSeconds: 300 }, new AbortController().signal)).catch((e: unknown) => e);
    await clock.advance(330_000);
    expect(await result).toMatchObject({ code: 'TIMEOUT' });
  });
});
