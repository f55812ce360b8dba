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
/** syslog's mtime: Last-Modified is `Wed, 01 May 2024 10:00:00 GMT` (whole seconds). */
const MTIME = new Date('2024-05-01T10:00:00.750Z');
const LAST_MODIFIED = 'Wed, 01 May 2024 10:00:00 GMT';

beforeAll(async () => {
  const top = await fs.mkdtemp(path.join(os.tmpdir(), 'node-logs-'));
  root = path.join(top, 'log');
  outside = path.join(top, 'secret.txt');
  await fs.mkdir(path.join(root, 'pods', 'ns_p_u'), { recursive: true });
  await fs.mkdir(path.join(root, 'containers'));
  await fs.writeFile(path.join(root, 'syslog'), 'line one\nline two\n');
  await fs.utimes(path.join(root, 'syslog'), MTIME, MTIME);
  await fs.writeFile(path.join(root, 'empty.log'), '');
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
        '<a href="empty.log">empty.log</a>\n' +
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

  it('redirects a directory asked without its slash and a file asked with one, keeping the query (Go localRedirect)', async () => {
    const res = await fetch(`${base}/logs/pods`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('pods/');
    const queried = await fetch(`${base}/logs/pods?query=kubelet`, { redirect: 'manual' });
    expect(queried.headers.get('location')).toBe('pods/?query=kubelet');
    const file = await fetch(`${base}/logs/pods/ns_p_u/0.log/`, { redirect: 'manual' });
    expect([file.status, file.headers.get('location')]).toEqual([301, '../0.log']);
  });

  it('ignores ?query= as upstream with NodeLogQuery off (its default): the directory or file is served', async () => {
    const listing = await fetch(`${base}/logs/?query=kubelet&boot=-1&pattern=x`);
    expect(listing.status).toBe(200);
    expect(await listing.text()).toContain('<a href="syslog">syslog</a>');
    const file = await fetch(`${base}/logs/syslog?query=kubelet`);
    expect(await file.text()).toBe('line one\nline two\n');
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

describe('GET /logs/ ranges (Go serveContent)', () => {
  const get = (p: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${base}/logs/${p}`, { headers, method });

  it('serves one range as 206 with Content-Range: bounded, open-ended, suffix, clipped to the size', async () => {
    for (const [range, contentRange, body] of [
      ['bytes=5-7', 'bytes 5-7/18', 'one'],
      ['bytes=9-', 'bytes 9-17/18', 'line two\n'],
      ['bytes=-4', 'bytes 14-17/18', 'two\n'],
      ['bytes=-100', 'bytes 0-17/18', 'line one\nline two\n'],
      ['bytes=14-1000', 'bytes 14-17/18', 'two\n'],
      ['bytes= 5 - 7 ,', 'bytes 5-7/18', 'one'],
    ] as const) {
      const res = await get('syslog', { Range: range });
      expect([range, res.status, res.headers.get('content-range'), res.headers.get('content-length'), await res.text()]).toEqual([
        range,
        206,
        contentRange,
        String(body.length),
        body,
      ]);
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(res.headers.get('last-modified')).toBe(LAST_MODIFIED);
    }
    const head = await get('syslog', { Range: 'bytes=0-3' }, 'HEAD');
    expect([head.status, head.headers.get('content-range'), head.headers.get('content-length'), await head.text()]).toEqual([
      206,
      'bytes 0-3/18',
      '4',
      '',
    ]);
  });

  it('says Accept-Ranges: bytes on a whole file, and serves it whole when the ranges add up to more than the file', async () => {
    const whole = await get('syslog');
    expect([whole.status, whole.headers.get('accept-ranges'), whole.headers.get('last-modified')]).toEqual([200, 'bytes', LAST_MODIFIED]);
    const greedy = await get('syslog', { Range: 'bytes=0-17,0-17' });
    expect([greedy.status, greedy.headers.get('content-range'), await greedy.text()]).toEqual([200, null, 'line one\nline two\n']);
  });

  it('answers 416 with Content-Range bytes */size when no range overlaps, and 416 to a malformed Range', async () => {
    for (const range of ['bytes=18-', 'bytes=18-20,100-']) {
      const res = await get('syslog', { Range: range });
      expect([res.status, res.headers.get('content-range'), res.headers.get('content-type'), await res.text()]).toEqual([
        416,
        'bytes */18',
        'text/plain; charset=utf-8',
        'invalid range: failed to overlap\n',
      ]);
      expect(res.headers.get('last-modified')).toBeNull(); // Go >= 1.23 serveError
    }
    for (const range of ['bytes=5', 'items=0-1', 'bytes=7-5', 'bytes=a-b', 'bytes=--1', 'bytes=0-99999999999999999999']) {
      const res = await get('syslog', { Range: range });
      expect([range, res.status, res.headers.get('content-range'), await res.text()]).toEqual([range, 416, null, 'invalid range\n']);
    }
    // An empty file ignores a Range that cannot overlap it (some clients send one with every request).
    const empty = await get('empty.log', { Range: 'bytes=0-' });
    expect([empty.status, empty.headers.get('content-length')]).toEqual([200, '0']);
  });

  it('serves several ranges as multipart/byteranges, each part with its Content-Range and Content-Type', async () => {
    const res = await get('syslog', { Range: 'bytes=0-3,-4' });
    expect(res.status).toBe(206);
    const type = res.headers.get('content-type') ?? '';
    const boundary = /^multipart\/byteranges; boundary=([0-9a-f]{60})$/.exec(type)?.[1];
    expect(boundary).toBeDefined();
    const body = await res.text();
    expect(body).toBe(
      `--${boundary}\r\nContent-Range: bytes 0-3/18\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nline` +
        `\r\n--${boundary}\r\nContent-Range: bytes 14-17/18\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ntwo\n` +
        `\r\n--${boundary}--\r\n`,
    );
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(res.headers.get('content-range')).toBeNull();
  });

  it("answers If-Modified-Since with 304 (Last-Modified kept, whole seconds), in each of Go's date formats", async () => {
    for (const since of [LAST_MODIFIED, 'Wednesday, 01-May-24 10:00:00 GMT', 'Wed May  1 10:00:00 2024', 'Thu, 02 May 2024 00:00:00 GMT']) {
      const res = await get('syslog', { 'If-Modified-Since': since });
      expect([since, res.status, res.headers.get('last-modified'), res.headers.get('content-type'), await res.text()]).toEqual([
        since,
        304,
        LAST_MODIFIED,
        null,
        '',
      ]);
    }
    for (const since of ['Wed, 01 May 2024 09:59:59 GMT', 'yesterday', '2024-05-02T00:00:00Z', 'Wed, 31 Apr 2024 10:00:00 GMT']) {
      expect([since, (await get('syslog', { 'If-Modified-Since': since })).status]).toEqual([since, 200]);
    }
    // A directory listing too.
    const dir = await get('pods/');
    const modified = dir.headers.get('last-modified') ?? '';
    expect(modified).toMatch(/ GMT$/);
    expect((await get('pods/', { 'If-Modified-Since': modified })).status).toBe(304);
  });

  it('evaluates If-Match, If-Unmodified-Since, If-None-Match and If-Range as Go does for a file without an ETag', async () => {
    const status = async (headers: Record<string, string>) => (await get('syslog', headers)).status;
    expect(await status({ 'If-Match': '"abc"' })).toBe(412);
    expect(await status({ 'If-Match': '"abc", *' })).toBe(200);
    expect(await status({ 'If-Unmodified-Since': 'Wed, 01 May 2024 09:59:59 GMT' })).toBe(412);
    expect(await status({ 'If-Unmodified-Since': LAST_MODIFIED })).toBe(200);
    expect(await status({ 'If-None-Match': '*' })).toBe(304);
    // A tag list that matches nothing turns If-Modified-Since off.
    expect(await status({ 'If-None-Match': '"abc"', 'If-Modified-Since': LAST_MODIFIED })).toBe(200);
    expect(await status({ Range: 'bytes=0-3', 'If-Range': LAST_MODIFIED })).toBe(206);
    expect(await status({ Range: 'bytes=0-3', 'If-Range': 'Wed, 01 May 2024 09:00:00 GMT' })).toBe(200);
    expect(await status({ Range: 'bytes=0-3', 'If-Range': '"abc"' })).toBe(200);
  });
});
