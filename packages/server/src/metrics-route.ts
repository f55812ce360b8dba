// Upstream server.go InstallDefaultHandlers / installCadvisorHandlers: /metrics, /metrics/cadvisor,
// /metrics/resource and /metrics/probes, each a promhttp handler over its own registry.
import { errorMessage } from '@kubelet-ts/common';
import type { Router } from './router.js';
import { sendText } from './router.js';

/** What a scrape answers: the exposition and its `Content-Type` (the metrics package's `exposition()`). */
export interface MetricsExposition {
  contentType: string;
  body: string;
}

export interface MetricsRouteOptions {
  /** `/metrics`, `/metrics/cadvisor`… */
  path: string;
  /** Renders the metrics at each scrape; a rejection is answered 500 with its message. */
  collect: () => Promise<MetricsExposition>;
}

/**
 * Installs a metrics endpoint for GET and HEAD. A failed collection is a 500 with promhttp's
 * HTTPErrorOnError text, so that Prometheus marks the scrape failed instead of storing half of it.
 */
export function installMetrics(router: Pick<Router, 'get'>, options: MetricsRouteOptions): void {
  router.get(options.path, async (_req, res, { logger }) => {
    let exposition: MetricsExposition;
    try {
      exposition = await options.collect();
    } catch (err) {
      logger.error('Error gathering metrics', { path: options.path, err: errorMessage(err) });
      return sendText(res, 500, `An error has occurred while serving metrics:\n\n${errorMessage(err)}\n`);
    }
    // node:http sends no body for HEAD; the length is the GET's, as Go's server does.
    res.writeHead(200, { 'Content-Type': exposition.contentType, 'Content-Length': Buffer.byteLength(exposition.body) });
    res.end(exposition.body);
  });
}
