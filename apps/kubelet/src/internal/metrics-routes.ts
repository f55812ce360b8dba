// Upstream server.go: /metrics (legacyregistry), /metrics/cadvisor, /metrics/resource and /metrics/probes,
// each its own registry, on the authenticated and the read-only servers.
import { cpus, totalmem } from 'node:os';
import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { instrumentImageService, instrumentRuntimeService } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import { createCadvisorCollector, createMetricsRegistry, createResourceMetricsCollector } from '@kubelet-ts/metrics';
import type { CadvisorIdentity, Collector, MetricsRegistry } from '@kubelet-ts/metrics';
import { installMetrics } from '@kubelet-ts/server';
import type { Router } from '@kubelet-ts/server';
import type { SummaryProvider } from '@kubelet-ts/stats';

/** The kubelet's four registries, one per endpoint as upstream's. */
export interface KubeletMetrics {
  /** `/metrics`: what every library records (the `Metrics` the kubelet is built with), process and build metrics. */
  readonly metrics: MetricsRegistry;
  /** `/metrics/probes`: prober_probe_total, prober_probe_duration_seconds. */
  readonly probes: MetricsRegistry;
  /** `/metrics/resource`: computed from the Summary when scraped. */
  readonly resource: MetricsRegistry;
  /** `/metrics/cadvisor`: computed from the Summary when scraped. */
  readonly cadvisor: MetricsRegistry;
}

export const METRICS_PATHS = ['/metrics', '/metrics/cadvisor', '/metrics/resource', '/metrics/probes'] as const;

/** The registries, made where the kubelet is built; the Summary collectors are added once stats exist. */
export function createKubeletMetrics(options: { nodeName: string; version: string }): KubeletMetrics {
  return {
    metrics: createMetricsRegistry({ processMetrics: true, buildInfo: { gitVersion: options.version }, nodeName: options.nodeName }),
    probes: createMetricsRegistry(),
    resource: createMetricsRegistry(),
    cadvisor: createMetricsRegistry(),
  };
}

export interface SummaryCollectorsOptions {
  stats: Pick<SummaryProvider, 'get'>;
  /** The kubelet's pods with status: images and container IDs for cAdvisor's labels. */
  getPods: () => readonly Pod[];
  /** The pod's cgroup (cgroupfs path), cAdvisor's `id`. */
  podCgroup?: (pod: Pod) => string | undefined;
  clock: Pick<Clock, 'now'>;
  logger: Logger;
}

/** Upstream NewResourceMetricsCollector and the cAdvisor collector, over the stats package's provider. */
export function addSummaryCollectors(registries: KubeletMetrics, options: SummaryCollectorsOptions): void {
  registries.resource.register(createResourceMetricsCollector({ summaryProvider: options.stats, logger: options.logger }));
  registries.cadvisor.register(
    createCadvisorCollector({
      summaryProvider: options.stats,
      machineInfo: () => ({ cpuCores: cpus().length, memoryBytes: totalmem() }),
      identify: (ref, container) => {
        const pod = options.getPods().find((p) => p.metadata.uid === ref.uid);
        return pod === undefined ? undefined : cadvisorIdentity(pod, container, options.podCgroup);
      },
      clock: options.clock,
      logger: options.logger,
    }),
  );
}

/** cAdvisor's `id`, `image` and `name` of a pod cgroup (no container) or of one of its containers. */
export function cadvisorIdentity(pod: Pod, container: string | undefined, podCgroup?: (pod: Pod) => string | undefined): CadvisorIdentity {
  const parent = podCgroup?.(pod);
  if (container === undefined) return parent === undefined ? {} : { id: parent };
  const status = pod.status ?? {};
  const statuses = [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])];
  const cs = statuses.find((s) => s.name === container);
  const runtimeId = (cs?.containerID ?? '').replace(/^[a-z0-9.-]+:\/\//, '');
  return {
    ...(cs?.image !== undefined ? { image: cs.image } : {}),
    ...(runtimeId !== '' ? { name: runtimeId } : {}),
    ...(parent !== undefined && runtimeId !== '' ? { id: `${parent}/${runtimeId}` } : {}),
  };
}

/**
 * Upstream's GaugeFunc of NewKubeletClientCertificateManager: seconds until the client certificate expires
 * (truncated, negative once expired), +Inf without a current one; read when scraped.
 */
export function clientCertificateTtlCollector(notAfter: () => number | undefined, clock: Pick<Clock, 'now'>): Collector {
  return {
    collect: () => {
      const expires = notAfter();
      const value = expires === undefined ? Infinity : Math.trunc((expires - clock.now()) / 1000);
      return [
        {
          name: 'kubelet_certificate_manager_client_ttl_seconds',
          help: "[ALPHA] Gauge of the TTL (time-to-live) of the Kubelet's client certificate. The value is in seconds until certificate expiry (negative if already expired). If client certificate is invalid or unused, the value will be +INF.",
          type: 'gauge',
          samples: [{ value }],
        },
      ];
    },
  };
}

/** Installs the four metrics endpoints on a router (GET/HEAD). */
export function installMetricsRoutes(router: Pick<Router, 'get'>, registries: KubeletMetrics): void {
  installMetrics(router, { path: '/metrics', collect: () => registries.metrics.exposition() });
  installMetrics(router, { path: '/metrics/cadvisor', collect: () => registries.cadvisor.exposition() });
  installMetrics(router, { path: '/metrics/resource', collect: () => registries.resource.exposition() });
  installMetrics(router, { path: '/metrics/probes', collect: () => registries.probes.exposition() });
}

/** The CRI client with upstream's instrumented services (kubelet_runtime_operations_*), everything else as it was. */
export function instrumentCri(cri: CriClient, options: { metrics: Metrics; clock: Pick<Clock, 'now'> }): CriClient {
  return {
    runtime: instrumentRuntimeService(cri.runtime, options),
    image: instrumentImageService(cri.image, options),
    endpoint: cri.endpoint,
    imageEndpoint: cri.imageEndpoint,
    close: () => cri.close(),
  };
}
