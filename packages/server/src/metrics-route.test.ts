import { request } from 'node:http';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { installMetrics } from './metrics-route.js';
import type { MetricsExposition } from './metrics-route.js';
import { createRouter } from './router.js';

let server: KubeletHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const TEXT = 'text/plain; version=0.0.4; charset=utf-8';

async function start(collect: () => Promise<MetricsExposition>): Promise<{ base: string; calls: () => number }> {
  let calls = 0;
  const router = createRouter();
  installMetrics(router, {
    path: '/metrics/resource',
    collect: () => {
      calls++;
      return collect();
    },
  });
  server = createKubeletHttpServer({ router });
  const { port } = await server.listen('127.0.0.1', 0);
  return { base: `http://127.0.0.1:${port}`, calls: () => calls };
}

function head(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'HEAD' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('installMetrics', () => {
  it('answers GET with the exposition and its content type, collected at each scrape', async () => {
    let n = 0;
    const { base, calls } = await start(async () => ({ contentType: TEXT, body: `resource_scrape_error ${n++}\n` }));
    const first = await fetch(`${base}/metrics/resource`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe(TEXT);
    expect(await first.text()).toBe('resource_scrape_error 0\n');
    expect(await (await fetch(`${base}/metrics/resource`)).text()).toBe('resource_scrape_error 1\n');
    expect(calls()).toBe(2);
  });

  it('answers HEAD with the headers and no body', async () => {
    const { base } = await start(async () => ({ contentType: TEXT, body: 'a 1\n' }));
    const res = await head(`${base}/metrics/resource`);
    expect(res).toEqual({ status: 200, headers: expect.objectContaining({ 'content-type': TEXT, 'content-length': '4' }), body: '' });
  });

  it('answers 500 with the message when collection fails', async () => {
    const { base } = await start(async () => {
      throw new Error('collecting metrics failed: summary unavailable');
    });
    const res = await fetch(`${base}/metrics/resource`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('An error has occurred while serving metrics:\n\ncollecting metrics failed: summary unavailable\n');
  });

  it('refuses other methods with 405', async () => {
    const { base } = await start(async () => ({ contentType: TEXT, body: '' }));
    const res = await fetch(`${base}/metrics/resource`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});
