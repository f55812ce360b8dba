import { quantityMilliValue, quantityValue } from './quantity.js';
import type { Quantity } from './quantity.js';
import type { Container } from './schemas.js';

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

/** Node allocatable of a resource in the unit its quantities are compared in: millicores for cpu, else bytes (hugepages: none). */
function allocatableAmount(allocatable: NodeResources, resource: string): number {
  if (resource === 'cpu') return allocatable.cpuMilli;
  if (resource === 'memory') return allocatable.memoryBytes;
  if (resource === 'ephemeral-storage') return allocatable.ephemeralStorageBytes ?? 0;
  return 0;
}

/**
 * The value of a resourceFieldRef (`limits.cpu`, `requests.memory`, …) of `container`, as upstream
 * ExtractContainerResourceValue after MergeContainerResourceLimits: a limit the container does not
 * set is node allocatable's, an unset request 0; cpu is counted in `divisor`s (default 1 core; `1m`
 * gives millicores; a zero divisor, which the API server writes for an unset one, counts as 1), memory,
 * ephemeral storage and hugepages in bytes per divisor, rounded up. What
 * the env of a container and a downwardAPI volume both write. undefined for a resource it does not
 * know; a malformed quantity throws ApiError INVALID_QUANTITY.
 */
export function containerResourceValue(
  resourcePath: string,
  divisor: Quantity | undefined,
  container: Container,
  allocatable: NodeResources,
): string | undefined {
  const [kind, resource] = resourcePath.split('.', 2) as [string, string | undefined];
  const list = kind === 'limits' ? container.resources?.limits : kind === 'requests' ? container.resources?.requests : undefined;
  if (resource === undefined || (kind !== 'limits' && kind !== 'requests')) return undefined;
  const set = (list as Record<string, Quantity | undefined> | undefined)?.[resource];
  const unset = kind === 'limits' ? allocatableAmount(allocatable, resource) : 0;
  const by = divisor === undefined || quantityMilliValue(divisor) === 0 ? '1' : divisor;
  if (resource === 'cpu') {
    const d = quantityMilliValue(by);
    return String(Math.ceil((set !== undefined ? quantityMilliValue(set) : unset) / d));
  }
  if (resource === 'memory' || resource === 'ephemeral-storage' || resource.startsWith('hugepages-')) {
    const d = quantityValue(by);
    return String(Math.ceil((set !== undefined ? quantityValue(set) : unset) / d));
  }
  return undefined;
}
