import os from 'node:os';
import type { NodeResources } from '@kubelet-ts/api';
import type { ContainerManager } from '@kubelet-ts/cgroup-manager';

/** The machine's cpus and memory as the OS reports them: what the node offers until the container manager computed its figures. */
export function machineResources(cpus = os.cpus().length, memoryBytes = os.totalmem()): NodeResources {
  return { cpuMilli: cpus * 1000, memoryBytes };
}

/** Node capacity and allocatable for every consumer, read at each use (the container manager computes them when it starts). */
export interface NodeResourceGetters {
  capacity: () => NodeResources;
  /** The downward API's default limits, memory-backed volume sizes, the node's allocatable. */
  allocatable: () => NodeResources;
}

/** The container manager's capacity and allocatable once it computed them, the machine's resources before. */
export function nodeResourceGetters(
  containerManager: Pick<ContainerManager, 'getNodeAllocatable'>,
  machine: () => NodeResources = machineResources,
): NodeResourceGetters {
  return {
    capacity: () => containerManager.getNodeAllocatable()?.capacity ?? machine(),
    allocatable: () => containerManager.getNodeAllocatable()?.allocatable ?? machine(),
  };
}
