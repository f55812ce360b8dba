import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createHttpsTransport } from './transport.js';
import type { Transport, TransportResponse } from './transport.js';

// A local plain-HTTP server: the transport's pooling and reload logic is the same as over TLS (the
// TLS path is proven against the real API server in test/integration).
describe('transport', () => {
  let server: http.Server;
  let url: string;
  let dir: string;
  const seen: { auth: string | undefined; path: string }[] = [];
  let sockets = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ auth: req.headers.authorization, path: req.url ?? '' });
      if (req.url?.endsWith('/watch')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED","object":{}}\n');
        return; // held open until the client closes it
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    server.on('connection', () => sockets++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-transport-'));
    seen.length = 0;
    sockets = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const read = async (r: TransportResponse): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const c of r.body) chunks.push(c);
    return Buffer.concat(chunks).toString();
  };
  const get = (t: Transport, p = '/x'): Promise<string> =>
    t.send({ method: 'GET', path: p, headers: {}, signal: new AbortController().signal }).then(read);

  it('reuses one connection for sequential requests and keeps the server path prefix', async () => {
    const t = createHttpsTransport({
      connection: { source: 't', server: url, skipTLSVerify: false },
      clock: systemClock,
      logger: noopLogger,
      reloadCheckMs: 1000,
    });
    for (let i = 0; i < 20; i++) expect(await get(t)).toBe('{"ok":true}');
    expect(t.connectionsOpened()).toBe(1);
    expect(sockets).toBe(1);
    expect(seen[0]?.path).toBe('/prefix/x');
    t.closeAll();
  });

  it('re-reads the token file when it changes', async () => {
    const tokenFile = path.join(dir, 'token');
    fs.writeFileSync(tokenFile, 'first\n');
    const t = createHttpsTransport({
      connection: { source: 't', server: url, tokenFile, skipTLSVerify: false },
      clock: systemClock,
      logger: noopLogger,
      reloadCheckMs: 0,
    });
    await get(t);
    fs.writeFileSync(tokenFile, 'second-token\n');
    await get(t);
    expect(seen.map((s) => s.auth)).toEqual(['Bearer first', 'Bearer second-token']);
    // A token change keeps the connection: only TLS material changes reconnect.
    expect(t.connectionsOpened()).toBe(1);
    t.closeAll();
  });

  it('closeAll ends a watch in progress and the next request reconnects', async () => {
    const t = createHttpsTransport({
      connection: { source: 't', server: url, skipTLSVerify: false },
      clock: systemClock,
      logger: noopLogger,
      reloadCheckMs: 1000,
    });
    const watch = await t.send({ method: 'GET', path: '/watch', headers: {}, signal: new AbortController().signal });
    const iterator = watch.body[Symbol.asyncIterator]();
    expect((await iterator.next()).value?.toString()).toContain('ADDED');
    t.closeAll();
    await expect(iterator.next()).rejects.toThrow();
    await get(t);
    expect(t.connectionsOpened()).toBe(2);
    t.closeAll();
  });
});
