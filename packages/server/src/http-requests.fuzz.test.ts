// Fuzzing of every port the kubelet serves (the authenticated server on 10250, the read-only port and
// the healthz port), with every endpoint installed over fakes: raw requests with hostile methods,
// paths, queries, headers and bodies, and raw bytes on the TCP and TLS sockets. The property: every
// request is answered with an HTTP status (a 4xx with a body for bad input), no handler fails
// uncaught, and a good request made after each case still gets 200.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import { newPod } from '@kubelet-ts/api/testing';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { fc, fuzz, fuzzRuns, hostileBytes, hostileText } from '@kubelet-ts/test-support';
import { createTestPki } from '../test/pki.js';
import type { KeyPair, TestPki } from '../test/pki.js';
import { createWebhookTokenAuthenticator, unionAuthenticator } from './authenticators.js';
import { alwaysAllowAuthorizer } from './authorizers.js';
import { installContainerLogs } from './container-logs-route.js';
import { installConfigz, installRunningPods } from './debugging-routes.js';
import { pingHealthz } from './healthz.js';
import { installHealthz } from './healthz.js';
import type { KubeletHttpServer } from './http-server.js';
import { createKubeletServer, KUBELET_MAX_HEADER_BYTES } from './kubelet-server.js';
import { installMetrics } from './metrics-route.js';
import { installNodeLogs } from './node-logs-route.js';
import { createRouter, sendJson } from './router.js';
import { createHealthzServer, createReadOnlyServer } from './servers.js';
import { installStreaming } from './streaming-route.js';
import { createFakeHealthzCheck } from './testing/fake-check.js';
import { FakeTokenReviewer } from './testing/fake-reviewers.js';

const GOOD_TOKEN = 'good-token';
/** Per-test deadline: the unit run's cases take ~1 s; the long run makes KUBELET_TS_FUZZ_SCALE times as many. */
const TIMEOUT_MS = fuzzRuns(30_000);
const web = newPod({ name: 'web', namespace: 'prod', uid: 'uid-1', containers: [{ name: 'app' }] });

interface Port {
  name: string;
  connect(): Duplex;
  /** Extra headers a good request carries (the bearer token on 10250). */
  auth: string;
  /** Where a good request goes after a case (the TLS port for raw TCP bytes on 10250). */
  serving?: Port;
}

let pki: TestPki;
let serving: KeyPair;
let logDir: string;
let backend: Server;
let backendUrl: string;
const logger = new RecordingLogger();
const servers: KubeletHttpServer[] = [];
const ports: Port[] = [];

/** A streaming server standing in for the runtime's: answers an upgrade with 101 and hangs up. */
async function startBackend(): Promise<void> {
  backend = createHttpServer((_req, res) => res.end('not an upgrade'));
  backend.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    socket.on('error', (err) => (lastSocketError = err.message));
    socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  backendUrl = `http://127.0.0.1:${(backend.address() as { port: number }).port}/stream`;
}

beforeAll(async () => {
  pki = createTestPki();
  const ca = pki.ca('fuzz-ca');
  serving = pki.issue(ca, 'serving', '/CN=node-1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  logDir = mkdtempSync(join(tmpdir(), 'kubelet-ts-fuzz-logs-'));
  mkdirSync(join(logDir, 'pods'));
  writeFileSync(join(logDir, 'syslog'), 'line 1\nline 2\n');
  writeFileSync(join(logDir, 'pods', 'a.log'), 'pod log\n');
  await startBackend();

  const reviewer = new FakeTokenReviewer();
  reviewer.setUser(GOOD_TOKEN, { name: 'admin', groups: ['system:masters'] });
  const router = createRouter({ logger });
  installHealthz(router, { checks: [pingHealthz, createFakeHealthzCheck('syncloop')], logger });
  router.get('/pods', (_req, res) => sendJson(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [web] }));
  router.get('/stats/summary', (_req, res) => sendJson(res, 200, { node: { nodeName: 'node-1' } }));
  installMetrics(router, { path: '/metrics', collect: async () => ({ contentType: 'text/plain; version=0.0.4', body: 'up 1\n' }) });
  installMetrics(router, {
    path: '/metrics/probes',
    collect: () => Promise.reject(new Error('registry gone')),
  });
  installConfigz(router, () => ({ kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', port: 10250 }));
  installRunningPods(router, async () => [{ uid: 'uid-1', name: 'web', namespace: 'prod', containers: [{ name: 'app', image: 'nginx' }] }]);
  installNodeLogs(router, { dir: logDir });
  const getPodByName = (namespace: string, name: string) => (namespace === 'prod' && name === 'web' ? web : undefined);
  installContainerLogs(router, {
    getPodByName,
    async streamLogs({ query }) {
      // The logs package validates the options; here a bad tailLines stands for any of them.
      const tail = query.get('tailLines');
      if (tail !== null && !/^\d+$/.test(tail))
        throw Object.assign(new Error(`invalid tailLines ${JSON.stringify(tail)}`), { status: 422 });
      return (async function* () {
        yield { data: Buffer.from('hello\n') };
      })();
    },
  });
  const known = (container: string): void => {
    if (container !== 'app') throw Object.assign(new Error(`container ${JSON.stringify(container)} not found`), { status: 404 });
  };
  installStreaming(router, {
    getPodByName,
    getExec: async ({ container }) => (known(container), backendUrl),
    getAttach: async ({ container }) => (known(container), backendUrl),
    getPortForward: async () => backendUrl,
    runInContainer: async ({ container, command }) => (known(container), Buffer.from(JSON.stringify(command))),
  });

  const kubelet = createKubeletServer({
    router,
    tls: { cert: serving.cert, key: serving.key },
    authenticator: unionAuthenticator([createWebhookTokenAuthenticator({ reviewer })], { anonymous: false }),
    authorizer: alwaysAllowAuthorizer,
    nodeName: 'node-1',
    logger,
  });
  const readOnly = createReadOnlyServer({ getPods: () => [web], checks: [pingHealthz], logger });
  const healthz = createHealthzServer({ checks: [pingHealthz], logger });
  servers.push(kubelet, readOnly, healthz);
  const [k, r, h] = await Promise.all(servers.map((s) => s.listen('127.0.0.1', 0)));
  ports.push(
    {
      name: 'kubelet (10250)',
      connect: () => connectTls({ host: '127.0.0.1', port: k!.port, rejectUnauthorized: false }),
      auth: `Authorization: Bearer ${GOOD_TOKEN}\r\n`,
    },
    { name: 'read-only', connect: () => connectTcp({ host: '127.0.0.1', port: r!.port }), auth: '' },
    { name: 'healthz', connect: () => connectTcp({ host: '127.0.0.1', port: h!.port }), auth: '' },
  );
  // Bytes below TLS: a client that never speaks TLS, or garbage in place of a ClientHello.
  ports.push({ name: 'kubelet (10250) TCP', connect: () => connectTcp({ host: '127.0.0.1', port: k!.port }), auth: '', serving: ports[0] });
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await new Promise<void>((resolve) => {
    backend.closeAllConnections();
    backend.close(() => resolve());
  });
  rmSync(logDir, { recursive: true, force: true });
  pki.cleanup();
});

/**
 * Writes `chunks` on a new connection, one per turn of the event loop (a slow writer), half-closes it
 * when asked (bytes that never make a whole request), and resolves with everything the server sent
 * until it closed (complete requests say `Connection: close`). A server that never closes fails the
 * test through jest's timeout.
 */
let lastSocketError = '';

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/**
 * Known gap (package README, "Limits"): a request the parser refuses (unknown method, headers over the
 * limit) while the client is still writing it over TLS may see the connection reset before the 400/431
 * is read — node's TLS socket is not drained after the refusal as a plain one is. Still no crash, and
 * the port keeps serving (checked after every case).
 */
function resetOverTls(port: Port, reply: Buffer): boolean {
  return port.name === 'kubelet (10250)' && reply.length === 0 && /ECONNRESET|EPIPE|^$/.test(lastSocketError);
}

function exchange(port: Port, chunks: readonly Uint8Array[], halfClose = false): Promise<Buffer> {
  return new Promise((resolve) => {
    lastSocketError = '';
    const socket = port.connect();
    const received: Buffer[] = [];
    socket.on('data', (d: Buffer) => received.push(d));
    // A reset after the server answered (it closes on a bad request while we still write) is fine.
    socket.on('error', (err) => (lastSocketError = err.message));
    socket.on('close', () => resolve(Buffer.concat(received)));
    const write = async (): Promise<void> => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        if (!socket.write(chunk)) await new Promise((r) => socket.once('drain', r));
        await new Promise((r) => setImmediate(r));
      }
      if (halfClose && !socket.destroyed) socket.end();
    };
    socket.once(port.name === 'kubelet (10250)' ? 'secureConnect' : 'connect', () => void write());
  });
}

interface Answer {
  status: number;
  headers: string;
  body: string;
}

/** The first response in `bytes`, or undefined when there is none. */
function firstResponse(bytes: Buffer): Answer | undefined {
  const text = bytes.toString('latin1');
  const match = /^HTTP\/1\.1 (\d{3}) [^\r\n]*\r\n/.exec(text);
  if (match === null) return undefined;
  const end = text.indexOf('\r\n\r\n');
  const headers = text.slice(0, end < 0 ? text.length : end);
  let body = end < 0 ? '' : text.slice(end + 4);
  if (/\r\ntransfer-encoding: chunked/i.test(headers)) body = body.replace(/^[0-9a-f]+\r\n/, '');
  return { status: Number(match[1]), headers, body };
}

const uncaught = (): string[] =>
  logger.records
    .filter((e) => e.msg === 'HTTP handler failed' || e.msg === 'auth filter failed')
    .map((e) => `${e.msg}: ${JSON.stringify(e.fields)}`);

async function expectStillServing(port: Port): Promise<void> {
  const answer = firstResponse(
    await exchange(port, [Buffer.from(`GET /healthz HTTP/1.1\r\nHost: node\r\n${port.auth}Connection: close\r\n\r\n`)]),
  );
  expect(answer).toMatchObject({ status: 200, body: 'ok' });
}

/** Checks one exchange: an HTTP answer, a body on every 4xx (but to HEAD), nothing failed uncaught, and the port still serves. */
async function checkAnswered(port: Port, method: string, bytes: Buffer, answerRequired = true): Promise<Answer | undefined> {
  try {
    return await checkAnswer(port, method, bytes, answerRequired);
  } finally {
    logger.records.splice(0);
  }
}

async function checkAnswer(port: Port, method: string, bytes: Buffer, answerRequired: boolean): Promise<Answer | undefined> {
  const answer = firstResponse(bytes);
  // Below TLS the server answers with TLS alerts, not HTTP.
  if (port.serving === undefined && (answerRequired || bytes.length > 0)) {
    if (answer === undefined)
      throw new Error(
        `${port.name}: no HTTP answer, got ${JSON.stringify(bytes.subarray(0, 200).toString('latin1'))} (${lastSocketError})`,
      );
    expect(answer.status).toBeGreaterThanOrEqual(100);
    expect(answer.status).toBeLessThan(600);
    if (answer.status >= 400 && answer.status < 500 && method !== 'HEAD') expect(answer.body.length).toBeGreaterThan(0);
  }
  expect(uncaught()).toEqual([]);
  await expectStillServing(port.serving ?? port);
  return answer;
}

const ROUTES = [
  '/healthz',
  '/healthz/ping',
  '/healthz/nope',
  '/pods',
  '/stats/summary',
  '/metrics',
  '/metrics/probes',
  '/configz',
  '/runningpods/',
  '/logs/',
  '/logs/syslog',
  '/logs/pods',
  '/containerLogs/prod/web/app',
  '/exec/prod/web/app',
  '/exec/prod/web/uid-1/app',
  '/attach/prod/web/app',
  '/portForward/prod/web',
  '/run/prod/web/app',
  '/',
];

const segment = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2E%2e',
    '%00',
    '%',
    '%zz',
    '%c0%ae',
    '%ff',
    '\u00e9',
    '%e2%80%ae',
    '',
    'prod',
    'web',
    'app',
    'uid-1',
  ),
  fc.string({ unit: 'grapheme', maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.string({ maxLength: 12 }).map((s) => s.replace(/[\s?#]/g, '')),
);

const path = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...ROUTES), fc.array(segment, { maxLength: 4 })).map(([r, s]) => [r, ...s].join('/')) },
  { weight: 2, arbitrary: fc.constantFrom(...ROUTES) },
  { weight: 1, arbitrary: fc.array(segment, { maxLength: 8 }).map((s) => `/${s.join('/')}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      '//etc/passwd',
      '/logs/../../../etc/passwd',
      '/logs/%2e%2e/%2e%2e/etc/passwd',
      '/logs/..%2f..%2fetc/passwd',
      '/logs/syslog%00.txt',
      'http://[::1/healthz',
      'http://kubelet.local:99999/healthz',
      'http://user@:80/healthz',
      'https://other.example/pods',
      '/%',
      '/\u00e9\u00e8',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 60_000 }).map((n) => `/logs/${'a'.repeat(n)}`) },
);

const queryValue = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '1',
    '1e400',
    'NaN',
    '9007199254740993',
    '-9223372036854775809',
    'true',
    'all',
    '',
    '%',
    '%00',
    '2026-13-45T99:99:99Z',
  ),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)),
  fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))),
);
const queryKey = fc.constantFrom(
  'tailLines',
  'tail',
  'sinceSeconds',
  'sinceTime',
  'limitBytes',
  'follow',
  'previous',
  'timestamps',
  'command',
  'cmd',
  'input',
  'output',
  'error',
  'tty',
  'port',
  'verbose',
  'exclude',
  'x',
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 6 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n]/g, ' ')),
  fc.constantFrom(
    '',
    ' ',
    'Bearer',
    'Bearer ',
    'Bearer  x',
    'bearer good-token',
    `Bearer ${GOOD_TOKEN} extra`,
    'Basic Zm9vOmJhcg==',
    'Bearer \u00ff',
  ),
);
const header = fc.oneof(
  fc.tuple(fc.constantFrom('Authorization', 'Upgrade', 'Connection', 'Expect', 'Host', 'X-Forwarded-For'), headerValue),
  fc.tuple(
    fc.constantFrom('Upgrade', 'Connection'),
    fc.constantFrom('websocket', 'SPDY/3.1', 'Upgrade', 'upgrade, keep-alive', 'h2c', 'websocket, websocket', ''),
  ),
  // Lengths the parser must refuse (a valid one that announces more than is sent would just wait).
  fc.tuple(fc.constantFrom('Content-Length'), fc.constantFrom('-1', '1e3', '99999999999999999999', '5, 6', '0x10', '+2')),
  fc.tuple(fc.constantFrom('Transfer-Encoding'), fc.constantFrom('gzip', 'chunked, gzip', 'x', 'identity')),
  fc.tuple(
    fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !/^\s*(content-length|transfer-encoding)\s*$/i.test(k)),
    headerValue,
  ),
);

interface RawRequest {
  port: number;
  method: string;
  target: string;
  headers: [string, string][];
  body: string;
  auth: boolean;
  splits: number[];
}

const rawRequest: fc.Arbitrary<RawRequest> = fc.record({
  port: fc.nat({ max: 2 }),
  method: fc.oneof(
    fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE', 'PRI', 'get'),
    fc.string({ minLength: 1, maxLength: 8 }).map((s) => s.replace(/[\s]/g, '')),
  ),
  target: fc.tuple(path, query).map(([p, q]) => p + q),
  headers: fc.array(header, { maxLength: 5 }),
  body: fc.oneof(
    fc.constant(''),
    hostileText().filter((t) => t.length < 10_000),
  ),
  auth: fc.boolean(),
  splits: fc.array(fc.nat(), { maxLength: 3 }),
});

function requestBytes(request: RawRequest, auth: string): { method: string; chunks: Buffer[] } {
  const headers = request.headers.map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const hasLength = request.headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k));
  const length = hasLength || request.body === '' ? '' : `Content-Length: ${Buffer.byteLength(request.body)}\r\n`;
  const head = `${request.method} ${request.target} HTTP/1.1\r\nHost: node\r\n${request.auth ? auth : ''}${headers}${length}Connection: close\r\n\r\n`;
  const bytes = Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(request.body, 'utf8')]);
  const cuts = [...new Set(request.splits.map((s) => s % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) chunks.push(bytes.subarray(from, cut));
    from = cut;
  }
  return { method: request.method, chunks };
}

describe('fuzzing the kubelet ports', () => {
  it(
    'answers every request (hostile method, path, query, headers, body) with a status, and keeps serving',
    async () => {
      await fuzz(
        'server: HTTP requests to the kubelet, read-only and healthz ports',
        rawRequest,
        async (request) => {
          const port = ports[request.port] as Port;
          const { method, chunks } = requestBytes(request, port.auth);
          const bytes = await exchange(port, chunks);
          const size = chunks.reduce((n, c) => n + c.length, 0);
          const refused = !STANDARD_METHODS.has(method) || size > 16 * 1024;
          await checkAnswered(port, method, bytes, !(refused && resetOverTls(port, bytes)));
        },
        { runs: 180 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers 401 with a body to every malformed or unknown Authorization on 10250',
    async () => {
      const kubelet = ports[0] as Port;
      await fuzz(
        'server: Authorization header on the kubelet port',
        fc.oneof(
          headerValue,
          hostileText().map((t) => t.slice(0, 2_000).replace(/[\r\n\0]/g, ' ')),
        ),
        async (value) => {
          const head = `GET /pods HTTP/1.1\r\nHost: node\r\nAuthorization: ${value}\r\nConnection: close\r\n\r\n`;
          const answer = await checkAnswered(kubelet, 'GET', await exchange(kubelet, [Buffer.from(head, 'latin1')]));
          const trimmed = value.trim().split(' ');
          // A value with bytes no header may hold is a malformed request; anything else is a credential.
          if (/[^\t\x20-\x7e\x80-\xff]/.test(Buffer.from(value, 'latin1').toString('latin1')))
            expect(answer).toMatchObject({ status: 400, body: '400 Bad Request' });
          else if (!(trimmed.length >= 2 && trimmed[0]?.toLowerCase() === 'bearer' && trimmed[1] === GOOD_TOKEN)) {
            expect(answer).toMatchObject({ status: 401, body: 'Unauthorized' });
          }
        },
        { runs: 60 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers headers up to the limit, and 431 with a body over it, on every port',
    async () => {
      await fuzz(
        'server: header size on every port',
        fc.record({
          port: fc.nat({ max: 2 }),
          size: fc.integer({ min: 1, max: KUBELET_MAX_HEADER_BYTES + 64 * 1024 }),
          split: fc.boolean(),
        }),
        async ({ port: index, size, split }) => {
          const port = ports[index] as Port;
          const head = `GET /healthz HTTP/1.1\r\nHost: node\r\n${port.auth}X-Big: ${'b'.repeat(size)}\r\nConnection: close\r\n\r\n`;
          const bytes = Buffer.from(head);
          const chunks = split ? [bytes.subarray(0, bytes.length >> 1), bytes.subarray(bytes.length >> 1)] : [bytes];
          const reply = await exchange(port, chunks);
          const answer = await checkAnswered(port, 'GET', reply, !(bytes.length > KUBELET_MAX_HEADER_BYTES && resetOverTls(port, reply)));
          if (bytes.length < KUBELET_MAX_HEADER_BYTES - 1024) expect(answer?.status).toBe(200);
          if (bytes.length > KUBELET_MAX_HEADER_BYTES + 1024 && answer !== undefined)
            expect(answer).toMatchObject({ status: 431, body: '431 Request Header Fields Too Large' });
        },
        { runs: 12 },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'survives raw bytes and truncated requests on the TCP and TLS sockets',
    async () => {
      const truncated = fc.tuple(fc.constantFrom(...ROUTES), fc.nat()).map(([route, cut]) => {
        const text = `GET ${route} HTTP/1.1\r\nHost: node\r\nContent-Length: 10\r\n\r\nabc`;
        return new Uint8Array(Buffer.from(text.slice(0, cut % text.length)));
      });
      // A TLS record header (handshake, TLS 1.0–1.3 versions) with a random body: a mangled ClientHello.
      const clientHello = fc
        .tuple(fc.constantFrom(0x16, 0x15, 0x17, 0x14), fc.nat({ max: 4 }), fc.uint8Array({ maxLength: 600 }))
        .map(([type, minor, body]) => new Uint8Array([type, 3, minor, body.length >> 8, body.length & 0xff, ...body]));
      await fuzz(
        'server: raw bytes on the kubelet (TLS and below it), read-only and healthz sockets',
        fc.record({ port: fc.nat({ max: 3 }), bytes: fc.oneof(hostileBytes(), truncated, clientHello), splits: fc.nat({ max: 4 }) }),
        async ({ port: index, bytes, splits }) => {
          const port = ports[index] as Port;
          const size = Math.max(1, Math.ceil(bytes.length / (splits + 1)));
          const chunks: Uint8Array[] = [];
          for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
          // Bytes that never finish a request head may be dropped without an answer (the client went);
          // anything the server does write must be an HTTP answer.
          await checkAnswered(port, 'GET', await exchange(port, chunks, true), false);
        },
        { runs: 90 },
      );
    },
    TIMEOUT_MS,
  );
});
