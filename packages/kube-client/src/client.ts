import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { createTokenBucket, noopMetrics } from '@kubelet-ts/common';
import { KubeClientError } from './errors.js';
import { createRestClient } from './internal/rest-client.js';
import { createHttpsTransport } from './internal/transport.js';
import type { ClusterConnection } from './kubeconfig.js';
import type { KubeClient } from './types.js';

/** Upstream KubeletConfiguration defaults (pkg/kubelet/apis/config/v1beta1/defaults.go). */
export const DEFAULT_KUBE_API_QPS = 50;
export const DEFAULT_KUBE_API_BURST = 100;

export interface KubeClientOptions {
  connection: ClusterConnection;
  /** Requests per second of the client-side token bucket (kubeAPIQPS); 0 or less: unlimited. */
  qps: number;
  /** Bucket size (kubeAPIBurst). */
  burst: number;
  /**
   * Deadline of each non-watch request: sent as `?timeout=` (the server gives up too, as client-go
   * does) and enforced locally (TIMEOUT). None when omitted or 0.
   */
  timeoutMs?: number;
  userAgent: string;
  /** Only JSON is spoken (upstream defaults to protobuf; the API server accepts both). */
  contentType?: 'application/json';
  logger: Logger;
  clock: Clock;
  metrics?: Metrics;
  /** Names the client in logs ("main", "heartbeat", "events"). */
  name: string;
  /** Retries of a 429 answered with Retry-After (client-go: 10). */
  maxRetries?: number;
  /** How often, at most, the certificate, key, CA and token files are checked for changes (default 1 s). */
  reloadCheckMs?: number;
}

/**
 * A client with its own keep-alive connection pool, rate limiter and timeout. The kubelet builds three
 * from one connection, as upstream does: the main client (kubeAPIQPS/kubeAPIBurst), the event client
 * (eventRecordQPS/eventBurst) and the heartbeat client (`qps: -1, timeoutMs: 10_000`), so that pod
 * traffic never delays the node lease and status.
 */
export function createKubeClient(options: KubeClientOptions): KubeClient {
  if (options.contentType !== undefined && options.contentType !== 'application/json') {
    throw new KubeClientError(
      'INVALID_OPTIONS',
      `kube client ${options.name}: content type ${String(options.contentType)} is not supported`,
    );
  }
  let server: URL;
  try {
    server = new URL(options.connection.server);
  } catch (err) {
    throw new KubeClientError('INVALID_OPTIONS', `kube client ${options.name}: server ${options.connection.server} is not a URL`, {
      cause: err,
    });
  }
  const logger = options.logger.child({ client: options.name });
  let transport;
  try {
    transport = createHttpsTransport({
      connection: options.connection,
      clock: options.clock,
      logger,
      reloadCheckMs: options.reloadCheckMs ?? 1000,
    });
  } catch (err) {
    throw new KubeClientError(
      'KUBECONFIG_INVALID',
      `${options.connection.source}: cannot read the TLS material or token: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
  return createRestClient(transport, {
    name: options.name,
    host: server.host,
    userAgent: options.userAgent,
    timeoutMs: options.timeoutMs,
    limiter: createTokenBucket({ qps: options.qps, burst: options.burst, clock: options.clock }),
    clock: options.clock,
    logger,
    metrics: options.metrics ?? noopMetrics,
    maxRetries: options.maxRetries ?? 10,
  });
}
