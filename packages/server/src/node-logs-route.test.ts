import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'node:net';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { installNodeLogs } from './node-logs-route.js';
import { createRouter } from './router.js';

let server: KubeletHttpServer;
let base = '';
let port = 0;
let root = '';
let outside = '';

beforeAll(async () => {
  const top = await fs.mkdtemp(path.join(os.tmpdir(), 'node-logs-'));
  root = path.join(top, 'log');
  outside = path.join(top, 'secret.txt');
  await fs.mkdir(path.join(root, 'pods', 'ns_p_u'), { recursive: true });
  await fs.mkdir(path.join(root, 'containers'));
  await fs.writeFile(path.join(root, 'syslog'), 'line one\nline two\n');
  await fs.writeFile(path.join(root, 'wtmp'), Buffer.from([0, 1, 2, 3]));
  await fs.writeFile(path.join(root, 'a <b>.log'), 'odd name\n');
  await fs.writeFile(path.join(root, 'pods', 'ns_p_u', '0.log'), 'from the container\n');
  await fs.symlink(path.join(root, 'pods', 'ns_p_u', '0.log'), path.join(root, 'containers', 'p_ns_c-abc.log'));
  await fs.writeFile(outside, 'not for you\n');
  const router = createRouter();
  installNodeLogs(router, { dir: root });
  server = createKubeletHttpServer({ router });
  port = (await server.listen('127.0.0.1', 0)).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await server.close();
  await fs.rm(path.dirname(root), { recursive: true, force: true });
});

/** A raw request, so that the path reaches the server exactly as written (fetch would clean `..`). */
function rawGet(pathname: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d: Buffer) => (data += d.toString()));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
    socket.write(`GET ${pathname} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  });
}

describe('GET /logs/', () => {
  it('lists a directory as Go does: sorted, directories with a slash, names escaped', async () => {
    const res = await fetch(`${base}/logs/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toBe(
      '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n' +
        '<a href="a%20%3Cb%3E.log">a &lt;b&gt;.log</a>\n' +
        '<a href="containers/">containers/</a>\n' +
        '<a href="pods/">pods/</a>\n' +
        '<a href="syslog">syslog</a>\n' +
        '<a href="wtmp">wtmp</a>\n' +
        '</pre>\n',
    );
  });

  it('serves a file with its length and a sniffed type, and follows symlinks inside', async () => {
    const res = await fetch(`${base}/logs/syslog`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('content-length')).toBe('18');
    expect(await res.text()).toBe('line one\nline two\n');
    const binary = await fetch(`${base}/logs/wtmp`);
    expect(binary.headers.get('content-type')).toBe('application/octet-stream');
    const linked = await fetch(`${base}/logs/containers/p_ns_c-abc.log`);
    expect(await linked.text()).toBe('from the container\n');
  });

  it('redirects a directory asked without its slash', async () => {
    const res = await fetch(`${base}/logs/pods`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('pods/');
  });

  it('never leaves the directory: plain, escaped and encoded-slash traversals are 404', async () => {
    for (const p of [
      '/logs/../secret.txt',
      '/logs/%2e%2e/secret.txt',
      '/logs/..%2fsecret.txt',
      '/logs/pods/..%2f..%2f..%2fsecret.txt',
      '/logs/%2E%2E%2Fsecret.txt',
    ]) {
      const answer = await rawGet(p);
      expect([p, answer.split('\r\n')[0]]).toEqual([p, 'HTTP/1.1 404 Not Found']);
      expect(answer).not.toContain('not for you');
    }
  });

  it('answers 404 for what is missing, 400 for a malformed escape or a NUL', async () => {
    expect((await fetch(`${base}/logs/nope.log`)).status).toBe(404);
    expect((await fetch(`${base}/logs/syslog/x`)).status).toBe(404);
    expect((await rawGet('/logs/%zz')).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
    expect((await rawGet('/logs/syslog%00.txt')).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
  });
});
