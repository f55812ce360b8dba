import { createServer } from 'node:http';
import { FakeClock } from '@kubelet-ts/common/testing';
import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { newPod } from '@kubelet-ts/api/testing';
import type { AuthorizationAttributes } from './auth.js';
import { createAuthFilter } from './auth-filter.js';
import { createWebSocketProtocolAuthenticator, createWebhookTokenAuthenticator, unionAuthenticator } from './authenticators.js';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { createRouter } from './router.js';
import { installStreaming, portsFromQuery, streamOptionsFromQuery } from './streaming-route.js';
import type { StreamingSource } from './streaming-route.js';
import { FakeTokenReviewer } from './testing/fake-reviewers.js';

const web = newPod({ name: 'web', namespace: 'prod', uid: 'uid-1', containers: [{ name: 'app' }] });

interface Backend {
  url: string;
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

/** A streaming server standing in for the runtime's: answers upgrades with `answer`, then echoes upper-cased. */
async function startBackend(answer: (socket: Duplex) => void = switchAndEcho): Promise<Backend> {
  const seen: Backend['seen'] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    res.end('not an upgrade');
  });
  const upgraded = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    upgraded.add(socket);
    socket.on('end', () => socket.end());
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    answer(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        for (const socket of upgraded) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function switchAndEcho(socket: Duplex): void {
  socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
  socket.on('data', (d: Buffer) => socket.write(d.toString().toUpperCase()));
}

let server: KubeletHttpServer | undefined;
let backend: Backend | undefined;
afterEach(async () => {
  await server?.close();
  await backend?.close();
  server = undefined;
  backend = undefined;
});

function fakeSource(overrides: Partial<StreamingSource> = {}): StreamingSource & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    getPodByName: (ns, name) => (ns === 'prod' && name === 'web' ? web : undefined),
    getExec: async (request) => {
      calls.push({ exec: request });
      return `${backend?.url}/exec/token-1`;
    },
    getAttach: async (request) => {
      calls.push({ attach: request });
      return `${backend?.url}/attach/token-2`;
    },
    getPortForward: async (request) => {
      calls.push({ portForward: request });
      return `${backend?.url}/portforward/token-3`;
    },
    runInContainer: async (request) => {
      calls.push({ run: request });
      return Buffer.from('out\nerr\n');
    },
    ...overrides,
  };
}

async function start(source: StreamingSource): Promise<number> {
  const router = createRouter();
  installStreaming(router, source);
  server = createKubeletHttpServer({ router });
  return (await server.listen('127.0.0.1', 0)).port;
}

/** A raw client: sends `head`, collects what comes back until the socket closes or `until` matches. */
function rawRequest(
  port: number,
  head: string,
): { socket: Socket; received: () => string; waitFor(text: string | RegExp): Promise<string>; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  socket.write(head);
  let data = '';
  const waiters: Array<() => void> = [];
  socket.on('data', (d: Buffer) => {
    data += d.toString('latin1');
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => undefined);
  return {
    socket,
    received: () => data,
    closed,
    waitFor: async (text) => {
      const has = (): boolean => (typeof text === 'string' ? data.includes(text) : text.test(data));
      while (!has()) {
        const more = new Promise<void>((resolve) => waiters.push(resolve));
        const ended = closed.then(() => {
          throw new Error(`connection closed before ${String(text)}; got ${JSON.stringify(data)}`);
        });
        await Promise.race([more, ended]);
      }
      return data;
    },
  };
}

const upgrade = (method: string, path: string, extra = ''): string =>
  `${method} ${path} HTTP/1.1\r\nHost: node-1:10250\r\nAuthorization: Bearer secret\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n${extra}\r\n`;

describe('streamOptionsFromQuery', () => {
  it('reads input/output/error/tty as "1" and drops stderr with a tty', () => {
    expect(streamOptionsFromQuery(new URLSearchParams('input=1&output=1&error=1'))).toEqual({
      stdin: true,
      stdout: true,
      stderr: true,
      tty: false,
    });
    expect(streamOptionsFromQuery(new URLSearchParams('output=1&error=1&tty=1'))).toEqual({
      stdin: false,
      stdout: true,
      stderr: false,
      tty: true,
    });
    expect(streamOptionsFromQuery(new URLSearchParams('output=true&error=1'))).toEqual({
      stdin: false,
      stdout: false,
      stderr: true,
      tty: false,
    });
  });
  it('refuses a request without any stream', () => {
    expect(() => streamOptionsFromQuery(new URLSearchParams('tty=1&error=1'))).toThrow(
      'you must specify at least 1 of stdin, stdout, stderr',
    );
  });
});

describe('portsFromQuery', () => {
  const ws = { headers: { upgrade: 'websocket', connection: 'keep-alive, Upgrade' } } as unknown as IncomingMessage;
  const spdy = { headers: { upgrade: 'SPDY/3.1', connection: 'Upgrade' } } as unknown as IncomingMessage;
  it('takes ports only from WebSocket requests, repeated or comma-separated', () => {
    expect(portsFromQuery(ws, new URLSearchParams('port=80,8080&port=9000'))).toEqual([80, 8080, 9000]);
    expect(portsFromQuery(spdy, new URLSearchParams('port=80'))).toEqual([]);
  });
  it('refuses missing, empty, malformed and zero ports with upstream texts', () => {
    expect(() => portsFromQuery(ws, new URLSearchParams(''))).toThrow('query parameter "port" is required');
    expect(() => portsFromQuery(ws, new URLSearchParams('port='))).toThrow('query parameter "port" cannot be empty');
    expect(() => portsFromQuery(ws, new URLSearchParams('port=http'))).toThrow('unable to parse "http" as a port');
    expect(() => portsFromQuery(ws, new URLSearchParams('port=65536'))).toThrow('unable to parse "65536" as a port');
    expect(() => portsFromQuery(ws, new URLSearchParams('port=0'))).toThrow('port "0" must be > 0');
  });
});

describe('/exec and /attach', () => {
  it('asks the runtime for an exec URL and proxies the upgrade there, both ways', async () => {
    backend = await startBackend();
    const source = fakeSource();
    const port = await start(source);
    const client = rawRequest(port, upgrade('POST', '/exec/prod/web/app?command=sh&command=-c&command=echo%20hi&input=1&output=1&tty=1'));
    const answer = await client.waitFor('\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    client.socket.write('hello');
    await client.waitFor('HELLO');
    expect(source.calls).toEqual([
      {
        exec: {
          pod: web,
          podUid: '',
          container: 'app',
          command: ['sh', '-c', 'echo hi'],
          streams: { stdin: true, stdout: true, stderr: false, tty: true },
        },
      },
    ]);
    const seen = backend.seen[0];
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/exec/token-1');
    expect(seen?.headers['x-stream-protocol-version']).toBe('v4.channel.k8s.io');
    expect(seen?.headers.authorization).toBeUndefined();
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
    client.socket.destroy();
  });

  it('closes the client when the runtime ends the stream, and the server closes open streams', async () => {
    backend = await startBackend((socket) => {
      socket.write('HTTP/1.1 101 Switching Protocols\r\n\r\nbye');
      socket.end();
    });
    const port = await start(fakeSource());
    const first = rawRequest(port, upgrade('GET', '/attach/prod/web/uid-1/app?output=1'));
    await first.closed;
    expect(first.received()).toMatch(/101 Switching Protocols\r\n\r\nbye$/);

    await backend.close();
    backend = await startBackend();
    const second = rawRequest(port, upgrade('GET', '/attach/prod/web/app?output=1'));
    await second.waitFor('101');
    await server?.close();
    await second.closed;
    server = undefined;
  });

  it('passes the attach request with the uid and the streams', async () => {
    backend = await startBackend();
    const source = fakeSource();
    const port = await start(source);
    const client = rawRequest(port, upgrade('GET', '/attach/prod/web/uid-1/app?output=1&error=1'));
    await client.waitFor('101');
    expect(source.calls).toEqual([
      { attach: { pod: web, podUid: 'uid-1', container: 'app', streams: { stdin: false, stdout: true, stderr: true, tty: false } } },
    ]);
    expect(backend.seen[0]?.url).toBe('/attach/token-2');
    client.socket.destroy();
  });

  it('answers a request that is not an upgrade with 500 "Upgrade request required"', async () => {
    backend = await startBackend();
    const port = await start(fakeSource());
    const res = await fetch(`http://127.0.0.1:${port}/exec/prod/web/app?command=ls&output=1`, { method: 'POST' });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('Upgrade request required\n');
    expect(backend.seen).toEqual([]);
  });

  it('refuses bad options (400), unknown pods (404) and malformed paths (404) before asking the runtime', async () => {
    const source = fakeSource();
    const port = await start(source);
    const noStreams = rawRequest(port, upgrade('GET', '/exec/prod/web/app?command=ls'));
    await noStreams.closed;
    expect(noStreams.received()).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nyou must specify at least 1 of stdin, stdout, stderr$/,
    );
    const noPod = rawRequest(port, upgrade('GET', '/exec/prod/db/app?command=ls&output=1'));
    await noPod.closed;
    expect(noPod.received()).toMatch(/^HTTP\/1\.1 404 Not Found\r\n[\s\S]*\r\n\r\npod does not exist$/);
    for (const path of ['/exec/prod/web', '/exec/prod/web/a/b/c', '/exec/prod//app', '/attach/prod/web/%zz']) {
      const res = await fetch(`http://127.0.0.1:${port}${path}?output=1`);
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect(source.calls).toEqual([]);
  });

  it("maps the source's errors as upstream's streaming.WriteError: 404, 429 with Retry-After, else 500", async () => {
    const errors = [
      Object.assign(new Error('container not found ("app")'), {}),
      Object.assign(new Error('rpc error: code = NotFound desc = no such container'), { status: 404 }),
      Object.assign(new Error('maximum number of in-flight requests exceeded'), { status: 429 }),
    ];
    const port = await start(
      fakeSource({
        getExec: async () => {
          throw errors.shift();
        },
      }),
    );
    const statuses: Array<[number, string | null, string]> = [];
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/exec/prod/web/app?command=ls&output=1`);
      statuses.push([res.status, res.headers.get('retry-after'), await res.text()]);
    }
    expect(statuses).toEqual([
      [500, null, 'container not found ("app")'],
      [404, null, 'rpc error: code = NotFound desc = no such container'],
      [429, '60', 'maximum number of in-flight requests exceeded'],
    ]);
  });

  it('passes a runtime error answer on, refuses a non-101 success, and reports an unreachable runtime', async () => {
    backend = await startBackend((socket) => socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\n\r\ntoken not found'));
    const port = await start(fakeSource());
    const gone = rawRequest(port, upgrade('GET', '/exec/prod/web/app?command=ls&output=1'));
    await gone.closed;
    expect(gone.received()).toBe('HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\n\r\ntoken not found');

    await backend.close();
    backend = await startBackend((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n'));
    const ok = rawRequest(port, upgrade('GET', '/exec/prod/web/app?command=ls&output=1'));
    await ok.closed;
    expect(ok.received()).toMatch(/^HTTP\/1\.1 500 [\s\S]*\r\n\r\ninvalid upgrade response: status code 200\n$/);

    const url = backend.url;
    await backend.close();
    backend = { url, seen: [], close: async () => undefined };
    const down = rawRequest(port, upgrade('GET', '/exec/prod/web/app?command=ls&output=1'));
    await down.closed;
    expect(down.received()).toMatch(/^HTTP\/1\.1 500 [\s\S]*\r\n\r\ndial tcp 127\.0\.0\.1:\d+: connect ECONNREFUSED 127\.0\.0\.1:\d+\n$/);
  });
});

describe('a WebSocket stream authenticated by its subprotocol token', () => {
  it('authenticates the token through the TokenReview port and does not pass it on to the runtime', async () => {
    backend = await startBackend();
    const reviewer = new FakeTokenReviewer();
    reviewer.setUser('browser-token', { name: 'jane', groups: ['devs'] });
    const tokens = createWebhookTokenAuthenticator({ reviewer, clock: new FakeClock() });
    const seen: AuthorizationAttributes[] = [];
    const filter = createAuthFilter({
      authenticator: unionAuthenticator([tokens, createWebSocketProtocolAuthenticator({ tokens })], { anonymous: false }),
      authorizer: {
        authorize: (attrs) => {
          seen.push(attrs);
          return Promise.resolve({ decision: 'allow', reason: '' });
        },
      },
      nodeName: 'node-1',
    });
    const router = createRouter();
    installStreaming(router, fakeSource());
    server = createKubeletHttpServer({ router, createServer: (listener) => createServer(filter(listener)) });
    const { port } = await server.listen('127.0.0.1', 0);
    const token = Buffer.from('browser-token').toString('base64url');
    const client = rawRequest(
      port,
      'GET /exec/prod/web/app?command=ls&output=1 HTTP/1.1\r\nHost: node-1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        `Sec-WebSocket-Protocol: v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.${token}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await client.waitFor('101');
    expect(seen.map((a) => [a.user.name, a.user.groups, a.verb, a.subresource])).toEqual([
      ['jane', ['devs', 'system:authenticated'], 'get', 'proxy'],
    ]);
    expect(reviewer.calls).toEqual(['browser-token']);
    expect(backend.seen[0]?.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io');
    client.socket.destroy();

    const refused = rawRequest(
      port,
      'GET /exec/prod/web/app?command=ls&output=1 HTTP/1.1\r\nHost: node-1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        `Sec-WebSocket-Protocol: v5.channel.k8s.io, base64url.bearer.authorization.k8s.io.${Buffer.from('nope').toString('base64url')}\r\n\r\n`,
    );
    await refused.closed;
    expect(refused.received()).toMatch(/^HTTP\/1\.1 401 Unauthorized\r\n[\s\S]*\r\n\r\nUnauthorized$/);
    expect(backend.seen).toHaveLength(1);
  });
});

describe('/portForward', () => {
  it('asks for the pod sandbox URL with the WebSocket ports and proxies there', async () => {
    backend = await startBackend();
    const source = fakeSource();
    const port = await start(source);
    const client = rawRequest(
      port,
      'GET /portForward/prod/web/uid-1?port=8080 HTTP/1.1\r\nHost: n\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await client.waitFor('101');
    expect(source.calls).toEqual([{ portForward: { pod: web, ports: [8080] } }]);
    expect(backend.seen[0]?.url).toBe('/portforward/token-3');
    client.socket.destroy();
  });

  it('refuses a uid that is not the pod\'s (404 "pod not found") and bad ports (400)', async () => {
    const source = fakeSource();
    const port = await start(source);
    const wrongUid = await fetch(`http://127.0.0.1:${port}/portForward/prod/web/uid-2`);
    expect([wrongUid.status, await wrongUid.text()]).toEqual([404, 'pod not found']);
    const badPort = rawRequest(
      port,
      'GET /portForward/prod/web?port=x HTTP/1.1\r\nHost: n\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    await badPort.closed;
    expect(badPort.received()).toMatch(/^HTTP\/1\.1 400 [\s\S]*unable to parse "x" as a port$/);
    expect(source.calls).toEqual([]);
  });
});

describe('/run', () => {
  it('runs the command split on spaces and answers with its output', async () => {
    const source = fakeSource();
    const port = await start(source);
    const res = await fetch(`http://127.0.0.1:${port}/run/prod/web/app?cmd=cat%20/etc/hostname`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.text()).toBe('out\nerr\n');
    expect(source.calls).toEqual([{ run: { pod: web, podUid: '', container: 'app', command: ['cat', '/etc/hostname'] } }]);
    const get = await fetch(`http://127.0.0.1:${port}/run/prod/web/app?cmd=ls`);
    expect(get.status).toBe(405);
  });

  it('answers 500 with the error of a failing command and 404 for an unknown pod', async () => {
    const port = await start(
      fakeSource({
        runInContainer: async () => {
          throw new Error("command 'false' exited with 1: ");
        },
      }),
    );
    const failed = await fetch(`http://127.0.0.1:${port}/run/prod/web/app?cmd=false`, { method: 'POST' });
    expect([failed.status, await failed.text()]).toEqual([500, "command 'false' exited with 1: "]);
    const missing = await fetch(`http://127.0.0.1:${port}/run/prod/db/app?cmd=ls`, { method: 'POST' });
    expect([missing.status, await missing.text()]).toEqual([404, 'pod does not exist']);
  });
});
