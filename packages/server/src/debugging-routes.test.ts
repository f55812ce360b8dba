import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { installConfigz, installDebuggingDisabled, installRunningPods } from './debugging-routes.js';
import type { RunningPodSummary } from './debugging-routes.js';
import { createRouter } from './router.js';

let server: KubeletHttpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(install: (router: ReturnType<typeof createRouter>) => void): Promise<string> {
  const router = createRouter();
  install(router);
  server = createKubeletHttpServer({ router });
  return `http://127.0.0.1:${(await server.listen('127.0.0.1', 0)).port}`;
}

it('/configz serves the configuration in effect under "kubeletconfig", without kind and apiVersion', async () => {
  let config: Record<string, unknown> = { kind: 'KubeletConfiguration', apiVersion: 'kubelet.config.k8s.io/v1beta1', maxPods: 110 };
  const base = await start((r) => installConfigz(r, () => config));
  const res = await fetch(`${base}/configz`);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(await res.json()).toEqual({ kubeletconfig: { maxPods: 110 } });
  config = { maxPods: 20 };
  expect(await (await fetch(`${base}/configz`)).json()).toEqual({ kubeletconfig: { maxPods: 20 } });
});

it('/runningpods/ lists the runtime pods as Go encodes bare v1 pods', async () => {
  let pods: RunningPodSummary[] = [];
  const base = await start((r) => installRunningPods(r, async () => pods));
  expect(await (await fetch(`${base}/runningpods/`)).json()).toEqual({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: null });
  pods = [{ uid: 'u1', name: 'web', namespace: 'prod', containers: [{ name: 'app', image: 'busybox:1' }] }];
  expect(await (await fetch(`${base}/runningpods/`)).json()).toEqual({
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: {},
    items: [
      {
        metadata: { name: 'web', namespace: 'prod', uid: 'u1', creationTimestamp: null },
        spec: { containers: [{ name: 'app', image: 'busybox:1', resources: {} }] },
        status: {},
      },
    ],
  });
});

it('with debugging handlers disabled, every debugging path answers 405 "Debug endpoints are disabled."', async () => {
  const base = await start((r) => installDebuggingDisabled(r));
  for (const [method, p] of [
    ['POST', '/run/ns/pod/c'],
    ['GET', '/exec/ns/pod/c'],
    ['GET', '/attach/ns/pod/c'],
    ['POST', '/portForward/ns/pod'],
    ['GET', '/containerLogs/ns/pod/c'],
    ['GET', '/runningpods/'],
    ['GET', '/debug/pprof/heap'],
    ['GET', '/logs/syslog'],
    ['GET', '/logs/'],
  ] as const) {
    const res = await fetch(`${base}${p}`, { method });
    expect([p, res.status, await res.text()]).toEqual([p, 405, 'Debug endpoints are disabled.\n']);
  }
});
