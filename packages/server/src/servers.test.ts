import { newPod } from '@kubelet-ts/api/testing';
import type { Pod } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { connect, createServer } from 'node:net';
import { ServerError } from './errors.js';
import { pingHealthz } from './healthz.js';
import type { KubeletHttpServer } from './http-server.js';
import { KUBELET_MAX_HEADER_BYTES } from './http-server.js';
import { createHealthzServer, createReadOnlyServer } from './servers.js';
import { sendText } from './router.js';
import { createFakeHealthzCheck } from './testing/fake-check.js';

const open: KubeletHttpServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function start(server: KubeletHttpServer): Promise<string> {
  open.push(server);
  const { port } = await server.listen('127.0.0.1', 0);
  return `http://127.0.0.1:${port}`;
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe('createHealthzServer', () => {
  it('answers 200 "ok" when every check passes, and lists them with ?verbose', async () => {
    const syncloop = createFakeHealthzCheck('syncloop');
    const base = await start(createHealthzServer({ checks: [pingHealthz, syncloop] }));
    const plain = await get(`${base}/healthz`);
    expect(plain).toMatchObject({ status: 200, body: 'ok' });
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await get(`${base}/healthz?verbose`)).toMatchObject({ status: 200, body: '[+]ping ok\n[+]syncloop ok\nhealthz check passed\n' });
    expect(syncloop.calls).toBe(2);
  });

  it('answers 500 listing each check when one fails, withholding the reason like upstream', async () => {
    const syncloop = createFakeHealthzCheck('syncloop');
    const logger = new RecordingLogger();
    const base = await start(createHealthzServer({ checks: [pingHealthz, syncloop], logger }));
    syncloop.failWith(new Error('sync loop has not run for 3m0s'));
    expect(await get(`${base}/healthz`)).toMatchObject({
      status: 500,
      body: '[+]ping ok\n[-]syncloop failed: reason withheld\nhealthz check failed\n',
    });
    expect(logger.find('healthz check failed')[0]?.fields).toMatchObject({ check: 'syncloop', err: 'sync loop has not run for 3m0s' });
    syncloop.failWith(undefined);
    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
  });

  it('shows the reasons when asked to, and for a rejected async check', async () => {
    const pleg = { name: 'pleg', check: async () => Promise.reject(new Error('pleg was last seen active 4m ago')) };
    const base = await start(createHealthzServer({ checks: [pingHealthz, pleg], showReasons: true }));
    expect(await get(`${base}/healthz`)).toMatchObject({
      status: 500,
      body: '[+]ping ok\n[-]pleg failed: pleg was last seen active 4m ago\nhealthz check failed\n',
    });
  });

  it('serves one check at /healthz/<name>, with its error', async () => {
    const log = createFakeHealthzCheck('log');
    log.failWith(new Error('log write blocked'));
    const base = await start(createHealthzServer({ checks: [pingHealthz, log] }));
    expect(await get(`${base}/healthz/ping`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${base}/healthz/log`)).toMatchObject({ status: 500, body: 'internal server error: log write blocked\n' });
    expect((await get(`${base}/healthz/nope`)).status).toBe(404);
  });

  it('skips checks named in ?exclude', async () => {
    const log = createFakeHealthzCheck('log');
    log.failWith(new Error('broken'));
    const base = await start(createHealthzServer({ checks: [pingHealthz, log] }));
    expect(await get(`${base}/healthz?exclude=log&verbose`)).toMatchObject({
      status: 200,
      body: '[+]ping ok\n[+]log excluded: ok\nhealthz check passed\n',
    });
    expect(log.calls).toBe(0);
  });

  it('fails a check that hangs past its timeout', async () => {
    const clock = new FakeClock();
    let started = false;
    const hung = { name: 'syncloop', check: () => ((started = true), new Promise<void>(() => undefined)) };
    const base = await start(createHealthzServer({ checks: [hung], clock, checkTimeoutMs: 5_000, showReasons: true }));
    const pending = get(`${base}/healthz`);
    const deadline = Date.now() + 5_000;
    while (!started && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await clock.advance(5_000);
    expect(await pending).toMatchObject({ status: 500, body: '[-]syncloop failed: check timed out after 5000ms\nhealthz check failed\n' });
  });

  it('answers 404 for any other path', async () => {
    const base = await start(createHealthzServer({ checks: [pingHealthz] }));
    expect(await get(`${base}/pods`)).toMatchObject({ status: 404, body: '404 page not found\n' });
  });
});

describe('createReadOnlyServer', () => {
  it('serves GET /pods as a v1 PodList with live status', async () => {
    const pod: Pod = { ...newPod({ name: 'web', namespace: 'kube-system' }), status: { phase: 'Running', podIP: '10.88.0.5' } };
    let pods: Pod[] = [pod];
    const base = await start(createReadOnlyServer({ getPods: () => pods, checks: [pingHealthz] }));
    const res = await get(`${base}/pods`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(JSON.parse(res.body)).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [pod] });
    expect(res.body.startsWith('{"kind":"PodList","apiVersion":"v1","metadata":{},"items":[')).toBe(true);

    pods = [];
    expect(JSON.parse((await get(`${base}/pods`)).body)).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: null });
  });

  it('answers 405 to other methods on /pods and 404 to unknown paths', async () => {
    const base = await start(createReadOnlyServer({ getPods: () => [], checks: [pingHealthz] }));
    const post = await get(`${base}/pods`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await get(`${base}/pods/extra`)).status).toBe(404);
    expect((await get(`${base}/stats/summary`)).status).toBe(404);
    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
  });

  it('turns a failing getPods into a logged 500', async () => {
    const logger = new RecordingLogger();
    const base = await start(createReadOnlyServer({ getPods: () => Promise.reject(new Error('pod manager gone')), checks: [], logger }));
    expect(await get(`${base}/pods`)).toMatchObject({ status: 500, body: 'Internal Server Error\n' });
    expect(logger.find('HTTP handler failed')[0]?.fields).toMatchObject({ method: 'GET', path: '/pods', err: 'pod manager gone' });
  });

  it('lets other packages add endpoints through the router, before or after listen', async () => {
    const server = createReadOnlyServer({ getPods: () => [], checks: [] });
    const base = await start(server);
    server.router.get('/containerLogs/*', (_req, res, { rest, url }) =>
      sendText(res, 200, `${rest} tail=${url.searchParams.get('tailLines')}`),
    );
    expect(await get(`${base}/containerLogs/default/web/app?tailLines=5`)).toMatchObject({ status: 200, body: 'default/web/app tail=5' });
    expect(() => server.router.get('/pods', () => undefined)).toThrow('already registered');
  });
});

describe('listen and close', () => {
  it('reports a port in use as LISTEN_FAILED, and refuses a second listen', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const server = createHealthzServer({ checks: [pingHealthz] });
      await expect(server.listen('127.0.0.1', port)).rejects.toMatchObject({ code: 'LISTEN_FAILED' });
      const other = createHealthzServer({ checks: [pingHealthz] });
      await start(other);
      const second: unknown = await other.listen('127.0.0.1', 0).catch((err: unknown) => err);
      expect(ServerError.is(second)).toBe(true);
      expect(second).toMatchObject({ code: 'ALREADY_LISTENING' });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('closes with keep-alive connections open, twice without error', async () => {
    const server = createHealthzServer({ checks: [pingHealthz] });
    const { port } = await server.listen('127.0.0.1', 0);
    expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    await server.close();
    await server.close();
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });
});

/** Sends raw bytes and resolves with everything the server wrote until it closed. */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
  });
}

describe('requests the parser or the router refuse (found by fuzzing)', () => {
  it('answers a malformed request 400 with a body, as Go does, instead of a bodiless 400', async () => {
    const server = createHealthzServer({ checks: [pingHealthz] });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    expect(await raw(port, 'GET /healthz HTTP/1.1\r\nContent-Length: -1\r\n\r\n')).toBe(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request',
    );
    expect(await raw(port, '\xff\xfe[\0]\0\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\n400 Bad Request$/);
  });

  it('answers a request URI no URL parser accepts 400, not a handler failure', async () => {
    const logger = new RecordingLogger();
    const server = createReadOnlyServer({ getPods: () => [], checks: [pingHealthz], logger });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    const answer = await raw(port, 'GET http://[::1/pods HTTP/1.1\r\nHost: node\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer.endsWith('\r\n\r\n400 Bad Request')).toBe(true);
    expect(logger.find('HTTP handler failed')).toEqual([]);
  });

  it('answers CONNECT through the router instead of dropping the connection', async () => {
    const server = createHealthzServer({ checks: [pingHealthz] });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    expect(await raw(port, 'CONNECT /healthz HTTP/1.1\r\nHost: node\r\n\r\n')).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nok$/);
    expect(await raw(port, 'CONNECT node:443 HTTP/1.1\r\nHost: node\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
  });

  it('takes headers up to Go’s 1 MiB on every port, and answers 431 with a body over it', async () => {
    const server = createReadOnlyServer({ getPods: () => [], checks: [pingHealthz] });
    open.push(server);
    const { port } = await server.listen('127.0.0.1', 0);
    const request = (size: number): string =>
      `GET /healthz HTTP/1.1\r\nHost: node\r\nX-Big: ${'b'.repeat(size)}\r\nConnection: close\r\n\r\n`;
    expect(await raw(port, request(64 * 1024))).toMatch(/^HTTP\/1\.1 200 OK\r\n[^]*ok$/);
    expect(await raw(port, request(KUBELET_MAX_HEADER_BYTES + 1024))).toMatch(
      /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[^]*\r\n\r\n431 Request Header Fields Too Large$/,
    );
  });
});
