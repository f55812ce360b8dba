import type { Pod } from '@kubelet-ts/api';
import { noopLogger } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import { installHealthz } from './healthz.js';
import type { HealthzCheck } from './healthz.js';
import { createKubeletHttpServer } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { createRouter, sendJson } from './router.js';

export interface HealthzServerOptions {
  checks: readonly HealthzCheck[];
  logger?: Logger;
  clock?: Clock;
  showReasons?: boolean;
  checkTimeoutMs?: number;
}

/**
 * The kubelet's healthz server (healthzBindAddress:healthzPort, 127.0.0.1:10248 by default): only
 * `/healthz` and `/healthz/<check>`; anything else is 404.
 */
export function createHealthzServer(options: HealthzServerOptions): KubeletHttpServer {
  const logger = options.logger ?? noopLogger;
  const router = createRouter({ logger });
  installHealthz(router, { ...options, logger });
  return createKubeletHttpServer({ router, logger, name: 'healthz' });
}

export interface ReadOnlyServerOptions {
  /** The pods the kubelet manages, with their current status (upstream: pod manager + status manager). */
  getPods: () => readonly Pod[] | Promise<readonly Pod[]>;
  checks: readonly HealthzCheck[];
  logger?: Logger;
  clock?: Clock;
  showReasons?: boolean;
  checkTimeoutMs?: number;
}

/** The body of `GET /pods`, shaped as upstream's encoded v1.PodList (`items` is null when empty, as Go encodes a nil slice). */
export function podListBody(pods: readonly Pod[]): {
  kind: 'PodList';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  items: Pod[] | null;
} {
  return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: pods.length === 0 ? null : [...pods] };
}

/**
 * The unauthenticated read-only server (readOnlyPort, disabled by default): `GET /pods` and the healthz
 * endpoints. Other packages add routes (`/stats/summary`, `/metrics`, `/spec`) through `server.router`.
 * Unknown paths answer 404, other methods on /pods 405.
 */
export function createReadOnlyServer(options: ReadOnlyServerOptions): KubeletHttpServer {
  const logger = options.logger ?? noopLogger;
  const router = createRouter({ logger });
  installHealthz(router, { ...options, logger });
  router.get('/pods', async (_req, res) => {
    sendJson(res, 200, podListBody(await options.getPods()));
  });
  return createKubeletHttpServer({ router, logger, name: 'read-only' });
}
