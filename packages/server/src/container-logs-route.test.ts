import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { installContainerLogs } from './container-logs-route.js';
import type { ContainerLogsSource } from './container-logs-route.js';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { createRouter } from './router.js';

let server: KubeletHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface Seen {
  pod: string;
  container: string;
  query: string;
  signal: AbortSignal;
}

async function start(streamLogs: ContainerLogsSource['streamLogs'], pods: Pod[]): Promise<string> {
  const router = createRouter();
  installContainerLogs(router, {
    getPodByName: (ns, name) => pods.find((p) => p.metadata.namespace === ns && p.metadata.name === name),
    streamLogs,
  });
  server = createKubeletHttpServer({ router });
  const { port } = await server.listen('127.0.0.1', 0);
  return `http://127.0.0.1:${port}/containerLogs`;
}

const web = newPod({ name: 'web', namespace: 'prod', containers: [{ name: 'app' }], initContainers: [{ name: 'setup' }] });
const bytes = (s: string): { data: Uint8Array } => ({ data: Buffer.from(s) });

describe('GET /containerLogs/{namespace}/{pod}/{container}', () => {
  it('streams the log as text/plain with the query passed on (tail as tailLines, tail=all as none)', async () => {
    const seen: Seen[] = [];
    const base = await start(
      async ({ pod, container, query, signal }) => {
        seen.push({ pod: pod.metadata.name, container, query: query.toString(), signal });
        return (async function* () {
          yield bytes('line 1\n');
          yield bytes('line 2\n');
        })();
      },
      [web],
    );
    const res = await fetch(`${base}/prod/web/app?tail=5&timestamps=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('line 1\nline 2\n');
    expect(seen[0]).toMatchObject({ pod: 'web', container: 'app', query: 'timestamps=true&tailLines=5' });
    await (await fetch(`${base}/prod/web/setup?tail=all`)).text();
    expect(seen[1]).toMatchObject({ container: 'setup', query: '' });
  });

  it.each([
    ['/prod/web', 400, '{"message": "Missing container name."}'],
    ['/prod/nope/app', 404, 'pod "nope" does not exist'],
    ['/prod/web/other', 404, 'container "other" not found in pod "web"'],
    ['/prod/web/app/extra', 404, '404 page not found'],
  ])('%s → %i %s', async (path, status, body) => {
    const base = await start(async () => (async function* () {})(), [web]);
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(`${body}\n`);
  });

  it('answers 422 or 400 with the reason when the log cannot start, before any byte', async () => {
    const invalid = Object.assign(new Error('invalid log options: tailLines: must be greater than or equal to 0'), { status: 422 });
    let fail: Error = invalid;
    const base = await start(async () => {
      throw fail;
    }, [web]);
    const res = await fetch(`${base}/prod/web/app?tailLines=-1`);
    expect([res.status, await res.text()]).toEqual([422, 'invalid log options: tailLines: must be greater than or equal to 0\n']);
    fail = new Error('container "app" in pod "web" is waiting to start: ContainerCreating');
    const waiting = await fetch(`${base}/prod/web/app`);
    expect([waiting.status, await waiting.text()]).toEqual([400, 'container "app" in pod "web" is waiting to start: ContainerCreating\n']);
  });

  it('stops reading the log when a following client goes away', async () => {
    let signal: AbortSignal | undefined;
    let release: () => void = () => undefined;
    const base = await start(
      async (request) => {
        signal = request.signal;
        return (async function* () {
          yield bytes('first\n');
          await new Promise<void>((resolve) => (release = resolve));
          yield bytes('never read\n');
        })();
      },
      [web],
    );
    const controller = new AbortController();
    const res = await fetch(`${base}/prod/web/app?follow=true`, { signal: controller.signal });
    const reader = res.body!.getReader();
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('first\n');
    controller.abort();
    for (let i = 0; i < 100 && signal?.aborted !== true; i++) await new Promise((r) => setImmediate(r));
    expect(signal?.aborted).toBe(true);
    release();
  });
});
