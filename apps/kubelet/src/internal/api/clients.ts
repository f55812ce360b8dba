// The kubelet's three API clients (upstream cmd/kubelet/app/server.go): each has its own connection
// pool and rate limit, so that pod traffic never delays the node's heartbeats.
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { ClusterConnection, KubeClient } from '@kubelet-ts/kube-client';
import { createKubeClient } from '@kubelet-ts/kube-client';

export interface KubeletClients {
  /** Pods, nodes informer, mirror pods, pod status: kubeAPIQPS / kubeAPIBurst. */
  main: KubeClient;
  /** Node status and lease: unthrottled, with a deadline of min(nodeStatusUpdateFrequency, lease duration). */
  heartbeat: KubeClient;
  /** Events: eventRecordQPS / eventBurst. */
  events: KubeClient;
  /** Upstream OnHeartbeatFailure (closeAllConns): drops the connections a dead peer holds open. */
  closeAllConnections(): void;
}

export function createKubeletClients(options: {
  connection: ClusterConnection;
  config: KubeletConfiguration;
  userAgent: string;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
}): KubeletClients {
  const { config, connection } = options;
  const make = (name: string, qps: number, burst: number, timeoutMs?: number): KubeClient =>
    createKubeClient({
      connection,
      name,
      userAgent: options.userAgent,
      qps,
      burst,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      clock: options.clock,
      logger: options.logger.child({ component: 'kube-client', client: name }),
      metrics: options.metrics,
    });
  const heartbeatTimeoutMs = Math.min(durationMs(config.nodeStatusUpdateFrequency), config.nodeLeaseDurationSeconds * 1000);
  const main = make('main', config.kubeAPIQPS, config.kubeAPIBurst);
  const heartbeat = make('heartbeat', -1, 0, heartbeatTimeoutMs);
  const events = make('events', config.eventRecordQPS, config.eventBurst);
  return {
    main,
    heartbeat,
    events,
    closeAllConnections() {
      main.closeAllConnections();
      heartbeat.closeAllConnections();
    },
  };
}
