// Upstream tryRegisterWithAPIServer's reconciliation of a Node that already exists: what the
// kubelet owns is made to match the node it would have registered; taints and spec are left alone.
import { parseQuantity } from '@kubelet-ts/api';
import type { Node, NodeStatus, Quantity, ResourceList } from '@kubelet-ts/api';
import { CONTROLLER_MANAGED_ATTACH_ANNOTATION, NodeLabel } from '../initial-node.js';

/** Upstream updateDefaultLabels' list: forced to the initial node's values, removed when those are empty. */
export const DEFAULT_LABELS: readonly string[] = [
  NodeLabel.Hostname,
  NodeLabel.TopologyZone,
  NodeLabel.TopologyRegion,
  NodeLabel.FailureDomainBetaZone,
  NodeLabel.FailureDomainBetaRegion,
  NodeLabel.InstanceTypeStable,
  NodeLabel.InstanceType,
  NodeLabel.OS,
  NodeLabel.Arch,
  NodeLabel.WindowsBuild,
  NodeLabel.BetaOS,
  NodeLabel.BetaArch,
];

const has = (o: object | undefined, k: string): boolean => o !== undefined && Object.prototype.hasOwnProperty.call(o, k);

/** Upstream reconcileCMADAnnotationWithExistingNode. */
export function reconcileAttachDetachAnnotation(initial: Node, existing: Node): boolean {
  const want = initial.metadata.annotations?.[CONTROLLER_MANAGED_ATTACH_ANNOTATION];
  const have = existing.metadata.annotations?.[CONTROLLER_MANAGED_ATTACH_ANNOTATION];
  if ((want ?? '') === (have ?? '')) return false;
  if (want === undefined) {
    delete existing.metadata.annotations?.[CONTROLLER_MANAGED_ATTACH_ANNOTATION];
  } else {
    existing.metadata.annotations = { ...existing.metadata.annotations, [CONTROLLER_MANAGED_ATTACH_ANNOTATION]: want };
  }
  return true;
}

/** Upstream updateDefaultLabels. */
export function updateDefaultLabels(initial: Node, existing: Node): boolean {
  const labels = (existing.metadata.labels ??= {});
  let changed = false;
  for (const label of DEFAULT_LABELS) {
    if (!has(initial.metadata.labels, label)) continue;
    const value = initial.metadata.labels?.[label] ?? '';
    if ((labels[label] ?? '') !== value) {
      labels[label] = value;
      changed = true;
    }
    if (labels[label] === '') delete labels[label];
  }
  return changed;
}

/** Upstream updateDefaultResources: a missing capacity or allocatable is taken from the initial node. */
function updateDefaultResources(initial: Node, existing: Node): boolean {
  const status: NodeStatus = (existing.status ??= {});
  let changed = false;
  for (const field of ['capacity', 'allocatable'] as const) {
    if (status[field] !== undefined) continue;
    const from = initial.status?.[field];
    status[field] = from === undefined ? {} : { ...from };
    if (from !== undefined) changed = true;
  }
  return changed;
}

/** Upstream v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io (`example.com/gpu`). */
export function isExtendedResourceName(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)\/([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name);
}

const isHugePages = (name: string): boolean => name.startsWith('hugepages-');

function sameQuantity(a: Quantity | undefined, b: Quantity | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return parseQuantity(a) === parseQuantity(b);
  } catch {
    return a === b;
  }
}

/** Upstream reconcileExtendedResource: zeroes extended resources when the device manager asks (node recreated). */
export function reconcileExtendedResources(initial: Node, existing: Node, shouldReset: boolean): boolean {
  let changed = updateDefaultResources(initial, existing);
  if (!shouldReset) return changed;
  const capacity = existing.status!.capacity as ResourceList;
  const allocatable = existing.status!.allocatable as ResourceList;
  for (const name of Object.keys(capacity)) {
    if (!isExtendedResourceName(name)) continue;
    capacity[name] = '0';
    allocatable[name] = '0';
    changed = true;
  }
  return changed;
}

/** Upstream reconcileHugePageResource: hugepage sizes of the machine now, with their capacity and allocatable. */
export function reconcileHugePages(initial: Node, existing: Node): boolean {
  let changed = updateDefaultResources(initial, existing);
  const capacity = existing.status!.capacity as ResourceList;
  const allocatable = existing.status!.allocatable as ResourceList;
  const initialCapacity = initial.status?.capacity ?? {};
  const initialAllocatable = initial.status?.allocatable ?? {};
  for (const name of Object.keys(initialCapacity).filter(isHugePages)) {
    const supported = has(capacity, name);
    if (!supported || !sameQuantity(capacity[name], initialCapacity[name])) {
      capacity[name] = initialCapacity[name] as Quantity;
      changed = true;
    }
    if (!supported || !sameQuantity(allocatable[name], initialAllocatable[name])) {
      // Go copies the zero quantity when the initial node has no allocatable of that size.
      allocatable[name] = initialAllocatable[name] ?? '0';
      changed = true;
    }
  }
  for (const name of Object.keys(capacity).filter(isHugePages)) {
    if (has(initialCapacity, name)) continue;
    delete capacity[name];
    delete allocatable[name];
    changed = true;
  }
  return changed;
}
