import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { ContainerStats, InterfaceStats, NetworkStats, PodReference, PodStats, SummaryProvider } from '@kubelet-ts/stats';
import { familyTable, stamp, timeMs } from './internal/families.js';
import type { FamilyTable } from './internal/families.js';
import type { Collector, MetricFamily } from './types.js';

/** What cAdvisor labels a container with besides its pod, namespace and container name; `''` when unknown. */
export interface CadvisorIdentity {
  /** The cgroup path (`/kubepods/burstable/pod<uid>/<container id>`). */
  id?: string;
  image?: string;
  /** The runtime's name of the container (its ID with containerd). */
  name?: string;
}

export interface CadvisorCollectorOptions {
  summaryProvider: Pick<SummaryProvider, 'get'>;
  /** The machine's logical CPUs and memory (cAdvisor MachineInfo). */
  machineInfo: () => { cpuCores: number; memoryBytes: number } | Promise<{ cpuCores: number; memoryBytes: number }>;
  /** The cAdvisor labels of a container, or of the pod cgroup when `container` is undefined. */
  identify?: (pod: PodReference, container: string | undefined) => CadvisorIdentity | undefined;
  /** For `container_last_seen`. */
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
}

const CADVISOR_FAMILIES = {
  container_cpu_usage_seconds_total: { type: 'counter', help: 'Cumulative cpu time consumed in seconds.' },
  container_fs_usage_bytes: { type: 'gauge', help: 'Number of bytes that are consumed by the container on this filesystem.' },
  container_last_seen: { type: 'gauge', help: 'Last time a container was seen by the exporter' },
  container_memory_rss: { type: 'gauge', help: 'Size of RSS in bytes.' },
  container_memory_usage_bytes: {
    type: 'gauge',
    help: 'Current memory usage in bytes, including all memory regardless of when it was accessed',
  },
  container_memory_working_set_bytes: { type: 'gauge', help: 'Current working set in bytes.' },
  container_network_receive_bytes_total: { type: 'counter', help: 'Cumulative count of bytes received' },
  container_network_receive_errors_total: { type: 'counter', help: 'Cumulative count of errors encountered while receiving' },
  container_network_transmit_bytes_total: { type: 'counter', help: 'Cumulative count of bytes transmitted' },
  container_network_transmit_errors_total: { type: 'counter', help: 'Cumulative count of errors encountered while transmitting' },
  container_scrape_error: { type: 'gauge', help: '1 if there was an error while getting container metrics, 0 otherwise' },
  container_start_time_seconds: { type: 'gauge', help: 'Start time of the container since unix epoch in seconds.' },
  machine_cpu_cores: { type: 'gauge', help: 'Number of logical CPU cores.' },
  machine_memory_bytes: { type: 'gauge', help: 'Amount of memory installed on the machine.' },
} as const satisfies Record<string, Omit<MetricFamily, 'name' | 'samples'>>;

type CadvisorName = keyof typeof CADVISOR_FAMILIES;

/** The metric names of `/metrics/cadvisor` that kubelet-ts gives (a subset of cAdvisor's; see the README). */
export const CADVISOR_METRIC_NAMES = Object.keys(CADVISOR_FAMILIES) as readonly CadvisorName[];

interface Figures {
  labels: Record<string, string>;
  startTime?: string;
  cpu?: ContainerStats['cpu'];
  memory?: ContainerStats['memory'];
  rootfs?: ContainerStats['rootfs'];
  network?: NetworkStats;
}

/** cAdvisor's label set, in its (sorted) order. */
function cadvisorLabels(identity: CadvisorIdentity | undefined, pod: PodReference | undefined, container: string): Record<string, string> {
  return {
    container,
    id: identity?.id ?? '',
    image: identity?.image ?? '',
    name: identity?.name ?? '',
    namespace: pod?.namespace ?? '',
    pod: pod?.name ?? '',
  };
}

function addFigures(t: FamilyTable<CadvisorName>, f: Figures, nowMs: number): void {
  const { labels } = f;
  t.add('container_last_seen', { labels, value: Math.floor(nowMs / 1000), timestampMs: nowMs });
  const start = f.startTime === undefined ? undefined : timeMs(f.startTime);
  if (start !== undefined && start > 0) t.add('container_start_time_seconds', { labels, value: start / 1000, timestampMs: nowMs });
  if (f.cpu?.usageCoreNanoSeconds !== undefined) {
    t.add('container_cpu_usage_seconds_total', {
      labels: { ...labels, cpu: 'total' },
      value: f.cpu.usageCoreNanoSeconds / 1e9,
      ...stamp(f.cpu.time),
    });
  }
  const memory = f.memory;
  if (memory !== undefined) {
    if (memory.usageBytes !== undefined) t.add('container_memory_usage_bytes', { labels, value: memory.usageBytes, ...stamp(memory.time) });
    if (memory.workingSetBytes !== undefined)
      t.add('container_memory_working_set_bytes', { labels, value: memory.workingSetBytes, ...stamp(memory.time) });
    if (memory.rssBytes !== undefined) t.add('container_memory_rss', { labels, value: memory.rssBytes, ...stamp(memory.time) });
  }
  // The writable layer; cAdvisor's `device` label is the block device, which the Summary does not give.
  if (f.rootfs?.usedBytes !== undefined)
    t.add('container_fs_usage_bytes', { labels: { ...labels, device: '' }, value: f.rootfs.usedBytes, ...stamp(f.rootfs.time) });
  const network = f.network;
  if (network !== undefined) {
    const interfaces: InterfaceStats[] = network.interfaces ?? [network];
    for (const i of interfaces) {
      const l = { ...labels, interface: i.name };
      const ts = stamp(network.time);
      if (i.rxBytes !== undefined) t.add('container_network_receive_bytes_total', { labels: l, value: i.rxBytes, ...ts });
      if (i.rxErrors !== undefined) t.add('container_network_receive_errors_total', { labels: l, value: i.rxErrors, ...ts });
      if (i.txBytes !== undefined) t.add('container_network_transmit_bytes_total', { labels: l, value: i.txBytes, ...ts });
      if (i.txErrors !== undefined) t.add('container_network_transmit_errors_total', { labels: l, value: i.txErrors, ...ts });
    }
  }
}

/**
 * `/metrics/cadvisor`: the container metrics dashboards use, computed from the Summary when scraped, with
 * cAdvisor's names and labels. Series: the root cgroup (`id="/"`, the node's figures), each pod cgroup
 * (`container=""`, its network too) and each container. A summary that cannot be had sets
 * `container_scrape_error` to 1 and gives the machine figures only.
 */
export function createCadvisorCollector(options: CadvisorCollectorOptions): Collector {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const identify = options.identify ?? (() => undefined);
  return {
    async collect() {
      const t = familyTable(CADVISOR_FAMILIES);
      const nowMs = clock.now();
      const machine = await options.machineInfo();
      t.add('machine_cpu_cores', { value: machine.cpuCores });
      t.add('machine_memory_bytes', { value: machine.memoryBytes });
      let errors = 0;
      try {
        const summary = await options.summaryProvider.get();
        const node = summary.node;
        addFigures(
          t,
          {
            labels: { ...cadvisorLabels(undefined, undefined, ''), id: '/' },
            startTime: node.startTime,
            ...(node.cpu !== undefined ? { cpu: node.cpu } : {}),
            ...(node.memory !== undefined ? { memory: node.memory } : {}),
            ...(node.network !== undefined ? { network: node.network } : {}),
          },
          nowMs,
        );
        for (const pod of summary.pods) addPod(t, pod, identify, nowMs);
      } catch (err) {
        errors = 1;
        logger.error('Error getting summary for the cadvisor metrics endpoint', { err: errorMessage(err) });
      }
      t.add('container_scrape_error', { value: errors });
      return t.families();
    },
  };
}

function addPod(
  t: FamilyTable<CadvisorName>,
  pod: PodStats,
  identify: NonNullable<CadvisorCollectorOptions['identify']>,
  nowMs: number,
): void {
  addFigures(
    t,
    {
      labels: cadvisorLabels(identify(pod.podRef, undefined), pod.podRef, ''),
      startTime: pod.startTime,
      ...(pod.cpu !== undefined ? { cpu: pod.cpu } : {}),
      ...(pod.memory !== undefined ? { memory: pod.memory } : {}),
      ...(pod.network !== undefined ? { network: pod.network } : {}),
    },
    nowMs,
  );
  for (const c of pod.containers) {
    addFigures(
      t,
      {
        labels: cadvisorLabels(identify(pod.podRef, c.name), pod.podRef, c.name),
        startTime: c.startTime,
        ...(c.cpu !== undefined ? { cpu: c.cpu } : {}),
        ...(c.memory !== undefined ? { memory: c.memory } : {}),
        ...(c.rootfs !== undefined ? { rootfs: c.rootfs } : {}),
      },
      nowMs,
    );
  }
}
