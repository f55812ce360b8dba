import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createHttpSource } from './http-source.js';
import { eventually, runSource } from './internal/test-helpers.js';
import type { SourceEvent } from './types.js';

interface Reply {
  status: number;
  body: string | Buffer;
  contentType?: string;
}

const podJson = (name: string, image = 'nginx:1.25') => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image }] },
});
const names = (event: SourceEvent | undefined): string[] =>
  event?.kind === 'set' ? event.pods.map((p: Pod) => p.metadata.name) : ['<not a set>'];

describe('createHttpSource', () => {
  let server: Server;
  let url: string;
  let reply: Reply;
  let requests: IncomingHttpHeaders[];
  let stops: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    reply = { status: 200, body: '' };
    requests = [];
    server = createServer((req, res) => {
      requests.push(req.headers);
      res.writeHead(reply.status, { 'content-type': reply.contentType ?? 'application/json' });
      res.end(reply.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods`;
  });
  afterEach(async () => {
    for (const stop of stops) await stop();
    stops = [];
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const start = (headers?: Record<string, string | string[]>) => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const run = runSource(
      createHttpSource({ url, nodeName: 'node-a', clock, logger, checkFrequencyMs: 20_000, ...(headers ? { headers } : {}) }),
    );
    stops.push(run.stop);
    /** Advances to the next poll and waits until the server has answered it and the source has handled it. */
    const poll = async (): Promise<void> => {
      const before = requests.length;
      const eventsBefore = run.events.length;
      await clock.advance(20_000);
      await eventually(() => (requests.length > before ? true : undefined), 5000, 'request');
      // Wait for the response to be handled: an event, or (for an unchanged body) a short settle.
      await eventually(() => (run.events.length > eventsBefore ? true : undefined), 300, 'event').catch(() => undefined);
    };
    return { ...run, clock, logger, poll };
  };

  it('reads a single Pod, sending the configured headers', async () => {
    reply = { status: 200, body: JSON.stringify(podJson('web')) };
    const src = start({ Authorization: 'Bearer t', 'X-Multi': ['a', 'b'] });
    const first = await eventually(() => src.sets()[0]);
    expect(names(first)).toEqual(['web-node-a']);
    const pod = first.kind === 'set' ? first.pods[0] : undefined;
    expect(pod?.metadata.annotations?.['kubernetes.io/config.source']).toBe('http');
    expect(pod?.spec.tolerations).toBeUndefined();
    expect(requests[0]?.authorization).toBe('Bearer t');
    expect(requests[0]?.['x-multi']).toBe('a, b');
  });

  it('reads a PodList in YAML', async () => {
    reply = {
      status: 200,
      contentType: 'application/yaml',
      body: `apiVersion: v1
kind: PodList
items:
- metadata: {name: one}
  spec: {containers: [{name: app, image: "busybox:1"}]}
- metadata: {name: two}
  spec: {containers: [{name: app, image: "busybox:1"}]}
`,
    };
    const src = start();
    expect(names(await eventually(() => src.sets()[0]))).toEqual(['one-node-a', 'two-node-a']);
  });

  it('keeps the last good set on a non-200 status or an invalid body, and reports the error', async () => {
    reply = { status: 200, body: JSON.stringify(podJson('web')) };
    const src = start();
    await eventually(() => src.sets()[0]);

    reply = { status: 503, body: 'unavailable' };
    await src.poll();
    reply = { status: 200, body: JSON.stringify({ ...podJson('web'), spec: { containers: [{ name: 'Bad', image: 'x' }] } }) };
    await src.poll();
    reply = { status: 200, body: '{not json' };
    await src.poll();

    expect(src.sets()).toHaveLength(1);
    const errors = src.events.flatMap((e) => (e.kind === 'error' ? e.errors : []));
    expect(errors.map((e) => `${e.file}|${e.path}|${e.reason}`)).toEqual([
      `${url}||unexpected HTTP status 503 Service Unavailable`,
      expect.stringMatching(new RegExp(`^${url.replace(/[.]/g, '\\.')}\\|spec\\.containers\\[0\\]\\.name\\|Invalid value "Bad"`)),
      expect.stringMatching(/\|\|invalid YAML: /),
    ]);

    reply = { status: 200, body: JSON.stringify(podJson('web', 'nginx:2')) };
    await src.poll();
    expect(src.sets()).toHaveLength(2);
    const latest = src.sets()[1];
    expect(latest?.kind === 'set' && latest.pods[0]?.spec.containers[0]?.image).toBe('nginx:2');
  });

  it('rejects the whole list when one item is invalid, naming the item', async () => {
    reply = {
      status: 200,
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'PodList',
        items: [podJson('ok'), { metadata: { name: 'bad' }, spec: { containers: [] } }],
      }),
    };
    const src = start();
    const error = await eventually(() => src.events.find((e) => e.kind === 'error'));
    expect(error.kind === 'error' && error.errors).toEqual([
      { source: 'http', file: url, path: 'items[1].spec.containers', reason: 'Required value' },
    ]);
    expect(src.sets()).toEqual([]);
  });

  it('treats an empty body as no pods', async () => {
    reply = { status: 200, body: JSON.stringify(podJson('web')) };
    const src = start();
    await eventually(() => src.sets()[0]);
    reply = { status: 200, body: '' };
    await src.poll();
    expect(names(src.sets()[1])).toEqual([]);
  });

  it('does not re-emit an unchanged body', async () => {
    reply = { status: 200, body: JSON.stringify(podJson('web')) };
    const src = start();
    await eventually(() => src.sets()[0]);
    await src.poll();
    await src.poll();
    expect(requests).toHaveLength(3);
    expect(src.sets()).toHaveLength(1);
  });

  it('rejects a body over the size limit and keeps nothing from it', async () => {
    reply = { status: 200, body: JSON.stringify({ ...podJson('web'), padding: 'x'.repeat(4096) }) };
    const clock = new FakeClock();
    const run = runSource(createHttpSource({ url, nodeName: 'node-a', clock, maxBodyBytes: 1024 }));
    stops.push(run.stop);
    const error = await eventually(() => run.events.find((e) => e.kind === 'error'));
    expect(error.kind === 'error' && error.errors[0]?.reason).toMatch(
      /^request failed: body (of \d+ bytes )?is over the limit of 1024 bytes$/,
    );
    expect(run.sets()).toEqual([]);
  });

  it('reports an unreachable URL and a timeout through an injected fetch', async () => {
    const clock = new FakeClock();
    const run = runSource(
      createHttpSource({
        url: 'http://example.invalid/pods',
        nodeName: 'n',
        clock,
        timeoutMs: 1000,
        fetch: (_url, init) =>
          new Promise<Response>((_resolve, reject) => init.signal.addEventListener('abort', () => reject(new Error('aborted')))),
      }),
    );
    stops.push(run.stop);
    await clock.advance(1000);
    const error = await eventually(() => run.events.find((e) => e.kind === 'error'));
    expect(error.kind === 'error' && error.errors[0]?.reason).toBe('request failed: timed out after 1000 ms');
  });

  // Found by the file and URL fuzzers: a UTF-16 body (with its byte order mark) was read as UTF-8 and
  // refused as "expected a Pod object, got a string"; invalid UTF-8 was silently replaced by U+FFFD.
  // Upstream's go-yaml reads UTF-16 by its BOM and refuses invalid UTF-8.
  it('reads a UTF-16 body by its byte order mark and refuses a body that is not valid UTF-8', async () => {
    reply = { status: 200, body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(podJson('wide')), 'utf16le')]) };
    const src = start();
    expect(names(await eventually(() => src.sets()[0]))).toEqual(['wide-node-a']);
    reply = {
      status: 200,
      body: Buffer.concat([Buffer.from('{"kind":"Pod","metadata":{"name":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}}')]),
    };
    await src.poll();
    const error = src.events.find((e) => e.kind === 'error');
    expect(error?.kind === 'error' && error.errors).toEqual([{ source: 'http', file: url, path: '', reason: 'body is not valid UTF-8' }]);
    expect(names(src.sets().at(-1))).toEqual(['wide-node-a']);
  });
});
