/**
 * What a node has or gives pods, in the units the kubelet computes with: cpu in millicores, memory
 * and ephemeral storage in bytes, pids as a count. The one shape of node capacity and allocatable
 * (upstream: the cpu, memory, ephemeral-storage and pid entries of a v1.ResourceList) that the
 * cgroup manager computes and node status, the downward API and memory-backed volumes read.
 */
export interface NodeResources {
  cpuMilli: number;
  memoryBytes: number;
  /** undefined when not known (standalone kubelet-ts does not compute it: resourceFieldRefs then read 0). */
  ephemeralStorageBytes?: number;
  /** undefined when not known or not reserved. */
  pids?: number;
}

/** As a core/v1 ResourceList: `cpu` in millicores (`"3800m"`), `memory` and `ephemeral-storage` in bytes; pids are not listed. */
export function nodeResourceList(resources: NodeResources): { cpu: string; memory: string; 'ephemeral-storage'?: string } {
  return {
    cpu: `${resources.cpuMilli}m`,
    memory: String(resources.memoryBytes),
    ...(resources.ephemeralStorageBytes !== undefined ? { 'ephemeral-storage': String(resources.ephemeralStorageBytes) } : {}),
  };
}
