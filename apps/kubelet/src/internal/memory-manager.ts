import { join } from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { MEMORY_MANAGER_STATE_FILE, createCheckpointManager } from '@kubelet-ts/checkpoint-manager';
import type { Logger, Metrics } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { effectiveEvictionHard } from '@kubelet-ts/config';
import type { MemoryManager, MemoryTopology, TopologyHint } from '@kubelet-ts/memory-manager';
import { createMemoryManager, nodeAllocatableReservation, readMemoryTopology } from '@kubelet-ts/memory-manager';

export interface KubeletMemoryManager {
  manager: MemoryManager;
  /**
   * The container's cpuset.mems at CreateContainer (upstream PreCreateContainer), after upstream's
   * PreStartContainer AddContainer (StartContainer follows at once): the plain init containers before it are done.
   */
  cpusetMemsFor(pod: Pod, container: Container): string | undefined;
  /** The pod lifecycle is built after the runtime: it tells the manager which pods are active and when every source was seen. */
  setPodSources(activePods: () => readonly Pod[], sourcesReady: () => boolean): void;
}

export interface KubeletMemoryManagerOptions {
  config: KubeletConfiguration;
  rootDir: string;
  /** The node's memory capacity (a percentage eviction threshold is of it). */
  memoryCapacityBytes: number;
  /** The topology manager's chosen affinities (built after this manager: it is one of its providers). */
  topologyAffinity: (podUID: string, containerName: string) => TopologyHint | undefined;
  /** Default: read from sysfs. */
  topology?: MemoryTopology;
  logger: Logger;
  /** The pinning metrics. Default: none. */
  metrics?: Metrics;
}

/**
 * Upstream's memory manager as the container manager builds and starts it: the policy and
 * reservedMemory from the configuration, checked against node allocatable's memory reservation
 * (kube- plus system-reserved plus evictionHard), the NUMA nodes from sysfs, the checkpoint in the
 * root dir (restored, or written for the policy); a second hint provider of the topology manager.
 */
export async function buildMemoryManager(o: KubeletMemoryManagerOptions): Promise<KubeletMemoryManager> {
  const { config } = o;
  let activePods: () => readonly Pod[] = () => [];
  let sourcesReady: () => boolean = () => false;
  const topology = o.topology ?? (await readMemoryTopology());
  const manager = createMemoryManager({
    policy: config.memoryManagerPolicy === 'Static' ? 'Static' : 'None',
    topology,
    reservedMemory: config.reservedMemory ?? [],
    nodeAllocatableReservation: nodeAllocatableReservation({
      ...(config.systemReserved !== undefined ? { systemReserved: config.systemReserved } : {}),
      ...(config.kubeReserved !== undefined ? { kubeReserved: config.kubeReserved } : {}),
      evictionHard: effectiveEvictionHard(config),
      memoryCapacityBytes: o.memoryCapacityBytes,
      topology,
    }),
    store: createCheckpointManager({ dir: o.rootDir }),
    statePath: join(o.rootDir, MEMORY_MANAGER_STATE_FILE),
    activePods: () => activePods(),
    sourcesReady: () => sourcesReady(),
    topologyAffinity: o.topologyAffinity,
    logger: o.logger,
    ...(o.metrics !== undefined ? { metrics: o.metrics } : {}),
  });
  await manager.start();
  return {
    manager,
    cpusetMemsFor(pod, container) {
      manager.addContainer(pod, container);
      return manager.cpusetMemsFor(pod.metadata.uid, container.name);
    },
    setPodSources(active, ready) {
      activePods = active;
      sourcesReady = ready;
    },
  };
}
