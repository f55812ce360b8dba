import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { quantityMilliValue } from '@kubelet-ts/api';
import { CPU_MANAGER_STATE_FILE, createCheckpointManager } from '@kubelet-ts/checkpoint-manager';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { KUBERNETES_CONTAINER_NAME_LABEL, KUBERNETES_POD_UID_LABEL } from '@kubelet-ts/container-runtime';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { CpuManager, CpuTopology } from '@kubelet-ts/cpu-manager';
import { createCpuManager, readCpuTopology } from '@kubelet-ts/cpu-manager';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import type { HintProvider, TopologyManager } from '@kubelet-ts/topology-manager';
import { createTopologyManager } from '@kubelet-ts/topology-manager';

export interface KubeletCpuManager {
  manager: CpuManager;
  /** The admit handler that aligns and allocates (upstream's resource allocator): the topology manager over the CPU manager. */
  topology: TopologyManager;
  /** The pod lifecycle is built after the runtime: it tells the manager which pods are active. */
  setActivePods(activePods: () => readonly Pod[]): void;
}

export interface KubeletCpuManagerOptions {
  config: KubeletConfiguration;
  rootDir: string;
  runtime: RuntimeService;
  /** Default: read from sysfs. */
  topology?: CpuTopology;
  /** The topology manager's other hint providers, after the CPU manager (upstream's order: CPU, memory, devices). */
  hintProviders?: readonly HintProvider[];
  clock: Clock;
  logger: Logger;
  /** The CPU manager's pinning and the topology manager's admission metrics. Default: none. */
  metrics?: Metrics;
}

/**
 * Upstream's CPU and topology managers as the container manager builds them: the CPU policy and
 * reserved CPUs from the configuration (reservedSystemCPUs, else kube- plus system-reserved CPU),
 * the checkpoint in the root dir, the machine's topology from sysfs, the runtime's running
 * containers for reconciling; the topology manager's policy and scope over the CPU manager and the
 * other hint providers (the memory manager; no device manager in kubelet-ts).
 */
export async function buildCpuManager(o: KubeletCpuManagerOptions): Promise<KubeletCpuManager> {
  let activePods: () => readonly Pod[] = () => [];
  const { config } = o;
  const reservedMilliCpus = [config.kubeReserved?.cpu, config.systemReserved?.cpu].reduce(
    (sum, q) => sum + (q === undefined ? 0 : quantityMilliValue(q)),
    0,
  );
  const topology = o.topology ?? (await readCpuTopology());
  const manager = createCpuManager({
    policy: config.cpuManagerPolicy === 'static' ? 'static' : 'none',
    topology,
    ...(config.reservedSystemCPUs !== undefined ? { reservedCpus: config.reservedSystemCPUs } : {}),
    reservedMilliCpus,
    store: createCheckpointManager({ dir: o.rootDir }),
    statePath: join(o.rootDir, CPU_MANAGER_STATE_FILE),
    runtime: {
      async listRunningContainers() {
        const { containers } = await o.runtime.listContainers({ filter: { state: { state: 'CONTAINER_RUNNING' } } });
        return containers.map((c) => ({
          id: c.id,
          podUID: c.labels[KUBERNETES_POD_UID_LABEL] ?? '',
          name: c.labels[KUBERNETES_CONTAINER_NAME_LABEL] ?? '',
        }));
      },
      async updateCpuset(containerId, cpuset) {
        // Only the cpuset, as upstream: the runtime keeps the container's other resources.
        await o.runtime.updateContainerResources({ containerId, linux: { cpusetCpus: cpuset } });
      },
    },
    activePods: () => activePods(),
    reconcilePeriodMs: durationMs(config.cpuManagerReconcilePeriod),
    clock: o.clock,
    logger: o.logger,
    ...(o.metrics !== undefined ? { metrics: o.metrics } : {}),
  });
  await manager.start();
  const topologyManager = createTopologyManager({
    policy: config.topologyManagerPolicy,
    scope: config.topologyManagerScope,
    numaNodes: [...new Set(topology.cpus.map((c) => c.numaNode))].sort((a, b) => a - b),
    providers: [manager, ...(o.hintProviders ?? [])],
    clock: o.clock,
    logger: o.logger.child({ component: 'topologymanager' }),
    ...(o.metrics !== undefined ? { metrics: o.metrics } : {}),
  });
  return { manager, topology: topologyManager, setActivePods: (fn) => (activePods = fn) };
}
