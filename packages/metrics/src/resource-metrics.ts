import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { ContainerStats, CPUStats, MemoryStats, PodStats, SummaryProvider } from '@kubelet-ts/stats';
import { familyTable, stamp, timeMs } from './internal/families.js';
import type { FamilyTable } from './internal/families.js';
import type { Collector, MetricFamily, Sample } from './types.js';

export interface ResourceMetricsCollectorOptions {
  /** The stats package's provider; a cached summary (no `updateStats`) is what upstream's endpoint reads too. */
  summaryProvider: Pick<SummaryProvider, 'get'>;
  logger?: Logger;
}

const RESOURCE_FAMILIES = {
  node_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the node in core-seconds' },
  node_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the node in bytes' },
  node_swap_usage_bytes: { type: 'gauge', help: '[ALPHA] Current swap usage of the node in bytes. Reported only on non-windows systems' },
  container_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the container in core-seconds' },
  container_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the container in bytes' },
  container_swap_usage_bytes: {
    type: 'gauge',
    help: '[ALPHA] Current amount of the container swap usage in bytes. Reported only on non-windows systems',
  },
  container_start_time_seconds: { type: 'gauge', help: '[STABLE] Start time of the container since unix epoch in seconds' },
  pod_cpu_usage_seconds_total: { type: 'counter', help: '[STABLE] Cumulative cpu time consumed by the pod in core-seconds' },
  pod_memory_working_set_bytes: { type: 'gauge', help: '[STABLE] Current working set of the pod in bytes' },
  pod_swap_usage_bytes: {
    type: 'gauge',
    help: '[ALPHA] Current amount of the pod swap usage in bytes. Reported only on non-windows systems',
  },
  scrape_error: {
    type: 'gauge',
    help: '[ALPHA] (Deprecated since 1.29.0) 1 if there was an error while getting container metrics, 0 otherwise',
  },
  resource_scrape_error: { type: 'gauge', help: '[STABLE] 1 if there was an error while getting container metrics, 0 otherwise' },
} as const satisfies Record<string, Omit<MetricFamily, 'name' | 'samples'>>;

/** The metric names of `/metrics/resource` (upstream resource_metrics.go). */
export const RESOURCE_METRIC_NAMES = Object.keys(RESOURCE_FAMILIES) as ReadonlyArray<keyof typeof RESOURCE_FAMILIES>;

const cpuSeconds = (cpu: CPUStats | undefined): Sample | undefined =>
  cpu?.usageCoreNanoSeconds === undefined ? undefined : { value: cpu.usageCoreNanoSeconds / 1e9, ...stamp(cpu.time) };
const workingSet = (memory: MemoryStats | undefined): Sample | undefined =>
  memory?.workingSetBytes === undefined ? undefined : { value: memory.workingSetBytes, ...stamp(memory.time) };

/**
 * `/metrics/resource` (upstream NewResourceMetricsCollector, what metrics-server reads): the node's, pods'
 * and containers' cumulative CPU and working set, with the time each was measured as the sample timestamp,
 * and containers' start times. A summary that cannot be had gives only `scrape_error` and
 * `resource_scrape_error` of 1. No swap figures: our Summary has none yet, so the swap families stay empty.
 */
export function createResourceMetricsCollector(options: ResourceMetricsCollectorOptions): Collector {
  const logger = options.logger ?? noopLogger;
  return {
    async collect() {
      const t = familyTable(RESOURCE_FAMILIES);
      let errors = 0;
      try {
        const summary = await options.summaryProvider.get();
        const node = summary.node;
        const nodeCpu = cpuSeconds(node.cpu);
        if (nodeCpu !== undefined) t.add('node_cpu_usage_seconds_total', nodeCpu);
        const nodeMemory = workingSet(node.memory);
        if (nodeMemory !== undefined) t.add('node_memory_working_set_bytes', nodeMemory);
        for (const pod of summary.pods) {
          for (const container of pod.containers) addContainer(t, pod, container);
          const labels = { pod: pod.podRef.name, namespace: pod.podRef.namespace };
          const cpu = cpuSeconds(pod.cpu);
          if (cpu !== undefined) t.add('pod_cpu_usage_seconds_total', { ...cpu, labels });
          const memory = workingSet(pod.memory);
          if (memory !== undefined) t.add('pod_memory_working_set_bytes', { ...memory, labels });
        }
      } catch (err) {
        errors = 1;
        logger.error('Error getting summary for resourceMetric prometheus endpoint', { err: errorMessage(err) });
      }
      t.add('scrape_error', { value: errors });
      t.add('resource_scrape_error', { value: errors });
      return t.families();
    },
  };
}

function addContainer(t: FamilyTable<keyof typeof RESOURCE_FAMILIES>, pod: PodStats, container: ContainerStats): void {
  const labels = { container: container.name, pod: pod.podRef.name, namespace: pod.podRef.namespace };
  // Upstream: only a start time after the epoch, and no timestamp on this one.
  const start = timeMs(container.startTime);
  if (start !== undefined && start > 0) t.add('container_start_time_seconds', { value: start / 1000, labels });
  const cpu = cpuSeconds(container.cpu);
  if (cpu !== undefined) t.add('container_cpu_usage_seconds_total', { ...cpu, labels });
  const memory = workingSet(container.memory);
  if (memory !== undefined) t.add('container_memory_working_set_bytes', { ...memory, labels });
}
