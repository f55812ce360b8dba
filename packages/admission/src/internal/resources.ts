// Pod requests and node allocatable as the scheduler's noderesources filter counts them
// (component-helpers resource.PodRequests, scheduler framework.Resource).
import type { Container, ContainerStatus, Node, Pod, Quantity, ResourceList } from '@kubelet-ts/api';
import { isRestartableInitContainer, quantityMilliValue, quantityValue, ResourceListSchema } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { z } from 'zod';

/** Amounts by resource name: cpu in millicores (Quantity.MilliValue), everything else as Quantity.Value. */
export type Amounts = Map<string, number>;

/** Upstream framework.Resource: what the fit compares. */
export interface Resource {
  milliCPU: number;
  memory: number;
  ephemeralStorage: number;
  /** Extended resources, hugepages, prefixed native and attachable-volume resources. */
  scalar: Map<string, number>;
}

/** What a quantity that does not parse is reported as; the caller decides (refuse the pod, or count 0). */
export type OnInvalidQuantity = (where: string, err: unknown) => void;

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

/** Upstream resource.IsSupportedPodLevelResource (v1.34: cpu, memory and hugepages). */
function isSupportedPodLevelResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name.startsWith(HUGEPAGES_PREFIX);
}

function amountOf(name: string, quantity: Quantity): number {
  return name === 'cpu' ? quantityMilliValue(quantity) : quantityValue(quantity);
}

function toAmounts(list: ResourceList | undefined, where: string, onInvalid: OnInvalidQuantity): Amounts {
  const out: Amounts = new Map();
  for (const [name, quantity] of Object.entries(list ?? {})) {
    try {
      out.set(name, amountOf(name, quantity));
    } catch (err) {
      onInvalid(`${where}[${name}]`, err);
    }
  }
  return out;
}

function add(into: Amounts, from: Amounts): void {
  for (const [name, value] of from) into.set(name, (into.get(name) ?? 0) + value);
}

function max(into: Amounts, from: Amounts): void {
  for (const [name, value] of from) {
    const current = into.get(name);
    if (current === undefined || value > current) into.set(name, value);
  }
}

// Fields that the shared Pod schema does not type (yet): parsed here, at the edge of this package.
const PodLevelResourcesSchema = z.looseObject({ requests: ResourceListSchema.optional() });

/** The pod-level `spec.resources.requests` (PodLevelResources, beta and on by default in v1.34). Throws a message naming the field. */
function podLevelRequests(pod: Pod): ResourceList | undefined {
  const raw = (pod.spec as Record<string, unknown>)['resources'];
  if (raw === undefined || raw === null) return undefined;
  const parsed = PodLevelResourcesSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data.requests;
}

function isPodResizeInfeasible(pod: Pod): boolean {
  const condition = pod.status?.conditions?.find((c) => c.type === 'PodResizePending');
  return condition?.reason === 'Infeasible';
}

export interface PodRequestsOptions {
  onInvalid: OnInvalidQuantity;
  /**
   * Upstream UseStatusResources (InPlacePodVerticalScaling, on by default in v1.34): for a pod
   * already on the node, a container whose status reports resources counts the larger of spec,
   * status and allocated requests (status and allocated only when its resize is infeasible).
   */
  useStatusResources?: boolean;
  /** Drops request entries before they are counted (upstream removeMissingExtendedResources). */
  keepRequest?: (name: string) => boolean;
}

/**
 * Upstream resource.PodRequests: the containers' requests summed, sidecars (restartable init
 * containers) added, the max with each init container (plus the sidecars started before it),
 * pod-level requests overriding cpu, memory and hugepages, then the pod overhead added. Unlike
 * upstream the quantities are rounded up per container rather than once per pod: only
 * sub-millicore or sub-byte fractions can tell the two apart.
 */
export function podRequests(pod: Pod, options: PodRequestsOptions): Amounts {
  const statuses = new Map<string, ContainerStatus>();
  if (options.useStatusResources === true) {
    for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) statuses.set(cs.name, cs);
  }
  const infeasible = options.useStatusResources === true && isPodResizeInfeasible(pod);
  const requestsOf = (container: Container, where: string): Amounts => {
    const spec = toAmounts(container.resources?.requests, `${where}.resources.requests`, options.onInvalid);
    let result = spec;
    const cs = statuses.get(container.name);
    if (cs?.resources !== undefined) {
      const status = toAmounts(cs.resources.requests, `status of ${container.name}: resources.requests`, options.onInvalid);
      const allocated = toAmounts(cs.allocatedResources, `status of ${container.name}: allocatedResources`, options.onInvalid);
      result = infeasible ? new Map(status) : new Map(spec);
      if (!infeasible) max(result, status);
      max(result, allocated);
    }
    if (options.keepRequest !== undefined) {
      for (const name of [...result.keys()]) if (!options.keepRequest(name)) result.delete(name);
    }
    return result;
  };

  const reqs: Amounts = new Map();
  pod.spec.containers.forEach((c, i) => add(reqs, requestsOf(c, `spec.containers[${i}]`)));

  const sidecars: Amounts = new Map();
  const initMax: Amounts = new Map();
  (pod.spec.initContainers ?? []).forEach((c, i) => {
    const own = requestsOf(c, `spec.initContainers[${i}]`);
    if (isRestartableInitContainer(c)) {
      // A sidecar keeps running: it counts with the containers, and under every later init container.
      add(reqs, own);
      add(sidecars, own);
      max(initMax, sidecars);
    } else {
      const during = new Map(own);
      add(during, sidecars);
      max(initMax, during);
    }
  });
  max(reqs, initMax);

  let podLevel: ResourceList | undefined;
  try {
    podLevel = podLevelRequests(pod);
  } catch (err) {
    options.onInvalid('spec.resources', err);
  }
  const podLevelAmounts = toAmounts(podLevel, 'spec.resources.requests', options.onInvalid);
  if ([...podLevelAmounts.keys()].some(isSupportedPodLevelResource)) {
    for (const [name, value] of podLevelAmounts) if (isSupportedPodLevelResource(name)) reqs.set(name, value);
  }

  if (pod.spec.overhead !== undefined) add(reqs, toAmounts(pod.spec.overhead, 'spec.overhead', options.onInvalid));
  return reqs;
}

/** Upstream framework.Resource.Add of a ResourceList: the names the fit knows, in its units. */
export function toResource(amounts: Amounts): Resource {
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
  const amounts = toAmounts(node.status?.allocatable, 'node status.allocatable', onInvalid);
  return { ...toResource(amounts), allowedPodNumber: amounts.get('pods') ?? 0 };
}

export function describeInvalid(where: string, err: unknown): string {
  return `${where}: ${errorMessage(err)}`;
}
