// Upstream server.go InstallAuthRequiredHandlers' /configz and /runningpods/, and
// InstallDebuggingDisabledHandlers.
import type { Router } from './router.js';
import { sendJson, sendText } from './router.js';

/** A pod as the runtime runs it (upstream kubecontainer.Pod): what `/runningpods/` lists. */
export interface RunningPodSummary {
  uid: string;
  name: string;
  namespace: string;
  containers: ReadonlyArray<{ name: string; image: string }>;
}

/**
 * `GET /configz`: `{"kubeletconfig": …}`, the KubeletConfiguration (v1beta1 field names) in effect, as
 * upstream's configz handler serves what the kubelet registered (without kind and apiVersion, which
 * upstream's conversion leaves empty).
 */
export function installConfigz(router: Pick<Router, 'get'>, config: () => Record<string, unknown>): void {
  router.get('/configz', async (_req, res) => {
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = config();
    res.setHeader('X-Content-Type-Options', 'nosniff');
    sendJson(res, 200, { kubeletconfig: rest });
  });
}

/**
 * `GET /runningpods/`: the pods the runtime runs (upstream GetRunningPods, "for testing only") as a
 * v1 PodList of bare pods — name, namespace, uid and each running container's name and image — shaped
 * as Go encodes them (`creationTimestamp: null`, `resources: {}`, `status: {}`, `items: null` when none).
 */
export function installRunningPods(router: Pick<Router, 'get'>, runningPods: () => Promise<readonly RunningPodSummary[]>): void {
  router.get('/runningpods/', async (_req, res) => {
    const pods = await runningPods();
    const items = pods.map((p) => ({
      metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: null },
      spec: { containers: p.containers.length === 0 ? null : p.containers.map((c) => ({ name: c.name, image: c.image, resources: {} })) },
      status: {},
    }));
    sendJson(res, 200, { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: items.length === 0 ? null : items });
  });
}

/** The paths `enableDebuggingHandlers: false` answers with 405 `Debug endpoints are disabled.` (upstream's list). */
export const DEBUGGING_PATHS: readonly string[] = [
  '/run/',
  '/exec/',
  '/attach/',
  '/portForward/',
  '/containerLogs/',
  '/runningpods/',
  '/debug/pprof/',
  '/logs/',
];

/** Upstream InstallDebuggingDisabledHandlers: every debugging path and what is below it answers 405. */
export function installDebuggingDisabled(router: Pick<Router, 'add'>): void {
  for (const path of DEBUGGING_PATHS) {
    const handler = async (_req: unknown, res: Parameters<typeof sendText>[0]): Promise<void> =>
      sendText(res, 405, 'Debug endpoints are disabled.\n');
    router.add('*', path, handler);
    router.add('*', `${path}*`, handler);
  }
}
