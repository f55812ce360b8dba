// Node allocatable and pod requests in the units the scheduler's noderesources filter compares
// (scheduler framework.Resource); the requests themselves are @kubelet-ts/api's podRequests.
import type { Node, OnInvalidQuantity, ResourceAmounts } from '@kubelet-ts/api';
import { resourceAmounts } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';

/** Upstream framework.Resource: what the fit compares. */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended resources, hugepages, prefixed native and attachable-volume resources. */
  scalar: Map<string, number>;
}

const RESOURCE_DEFAULT_NAMESPACE_PREFIX = 'kubernetes.io/';
const DEFAULT_RESOURCE_REQUESTS_PREFIX = 'requests.';
const HUGEPAGES_PREFIX = 'hugepages-';
const ATTACHABLE_VOLUMES_PREFIX = 'attachable-volumes-';

/** Upstream v1helper.IsPrefixedNativeResource. */
function isPrefixedNativeResource(name: string): boolean {
  return name.includes(RESOURCE_DEFAULT_NAMESPACE_PREFIX);
}

/**
 * Upstream v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io, not a
 * quota name. (Whether it is a valid qualified name is pod validation's business.)
 */
export function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || isPrefixedNativeResource(name);
  return !native && !name.startsWith(DEFAULT_RESOURCE_REQUESTS_PREFIX);
}

/** Upstream schedutil.IsScalarResourceName: the resources besides cpu, memory, ephemeral-storage and pods that the fit counts. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    name.startsWith(HUGEPAGES_PREFIX) ||
    isPrefixedNativeResource(name) ||
    name.startsWith(ATTACHABLE_VOLUMES_PREFIX)
  );
}

/** Upstream framework.Resource.Add of a ResourceList: the names the fit knows, in its units. */
export function toResource(amounts: ResourceAmounts): Resource {
  const r: Resource = { milliCPU: 0, memory: 0, ephemeralStorage: 0, scalar: new Map() };
  for (const [name, value] of amounts) {
    if (name === 'cpu') r.milliCPU += value;
    else if (name === 'memory') r.memory += value;
    else if (name === 'ephemeral-storage') r.ephemeralStorage += value;
    else if (isScalarResourceName(name)) r.scalar.set(name, (r.scalar.get(name) ?? 0) + value);
  }
  return r;
}

export function addResource(into: Resource, from: Resource): void {
  into.milliCPU += from.milliCPU;
  into.memory += from.memory;
  into.ephemeralStorage += from.ephemeralStorage;
  for (const [name, value] of from.scalar) into.scalar.set(name, (into.scalar.get(name) ?? 0) + value);
}

export interface Allocatable extends Resource {
  /** Upstream AllowedPodNumber: allocatable `pods` (0 when the node does not say). */
  allowedPodNumber: number;
}

/** Upstream NodeInfo.SetNode: the node's allocatable as framework.Resource. */
export function nodeAllocatable(node: Node, onInvalid: OnInvalidQuantity): Allocatable {
  const amounts = resourceAmounts(node.status?.allocatable, 'node status.allocatable', onInvalid);
  return { ...toResource(amounts), allowedPodNumber: amounts.get('pods') ?? 0 };
}

export function describeInvalid(where: string, err: unknown): string {
  return `${where}: ${errorMessage(err)}`;
}
