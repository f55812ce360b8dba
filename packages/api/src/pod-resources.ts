// A pod's effective requests and limits: upstream component-helpers resource.PodRequests and
// resource.PodLimits, the one home of this arithmetic for admission, cgroups and eviction.
import { z } from 'zod';
import { isRestartableInitContainer } from './helpers.js';
import { quantityMilliValue, quantityValue } from './quantity.js';
import type { Quantity } from './quantity.js';
import { ResourceListSchema } from './schemas.js';
import type { Container, ContainerStatus, Pod, ResourceList } from './schemas.js';

/** Amounts by resource name: cpu in millicores (Quantity.MilliValue), everything else as Quantity.Value. */
export type ResourceAmounts = Map<string, number>;

/** A quantity that does not parse, by where it is (`spec.containers[0].resources.requests[cpu]`); the caller refuses or counts 0. */
export type OnInvalidQuantity = (where: string, err: unknown) => void;

export interface PodResourcesOptions {
  onInvalid: OnInvalidQuantity;
  /**
   * Upstream UseStatusResources (InPlacePodVerticalScaling, on by default in v1.34): for a pod
   * already on the node, a container whose status reports resources counts the larger of spec,
   * status and allocated requests (status and allocated only when its resize is infeasible).
   * Requests only.
   */
  useStatusResources?: boolean;
  /** Drops entries before they are counted (upstream removeMissingExtendedResources). */
  keep?: (name: string) => boolean;
  /** Called with each container's own amounts (upstream ContainerFn), e.g. to see which ones declare a limit. */
  onContainer?: (container: Container, amounts: ResourceAmounts, kind: 'container' | 'init') => void;
}

const HUGEPAGES_PREFIX = 'hugepages-';

/** Upstream resource.IsSupportedPodLevelResource (v1.34: cpu, memory and hugepages). */
export function isSupportedPodLevelResource(name: string): boolean {
  return name === 'cpu' || name === 'memory' || name.startsWith(HUGEPAGES_PREFIX);
}

function amountOf(name: string, quantity: Quantity): number {
  return name === 'cpu' ? quantityMilliValue(quantity) : quantityValue(quantity);
}

/** A resource list as amounts; entries that do not parse are reported and left out. */
export function resourceAmounts(list: ResourceList | undefined, where: string, onInvalid: OnInvalidQuantity): ResourceAmounts {
  const out: ResourceAmounts = new Map();
  for (const [name, quantity] of Object.entries(list ?? {})) {
    try {
      out.set(name, amountOf(name, quantity));
    } catch (err) {
      onInvalid(`${where}[${name}]`, err);
    }
  }
  return out;
}

function add(into: ResourceAmounts, from: ResourceAmounts): void {
  for (const [name, value] of from) into.set(name, (into.get(name) ?? 0) + value);
}

function max(into: ResourceAmounts, from: ResourceAmounts): void {
  for (const [name, value] of from) {
    const current = into.get(name);
    if (current === undefined || value > current) into.set(name, value);
  }
}

// `spec.resources` (PodLevelResources, beta and on by default in v1.34) is not in the shared Pod schema yet.
const PodLevelResourcesSchema = z.looseObject({ requests: ResourceListSchema.optional(), limits: ResourceListSchema.optional() });

/** The pod-level `spec.resources.<kind>`; an invalid one is reported and counts as absent. */
function podLevel(pod: Pod, kind: 'requests' | 'limits', onInvalid: OnInvalidQuantity): ResourceAmounts {
  const raw = (pod.spec as Record<string, unknown>)['resources'];
  if (raw === undefined || raw === null) return new Map();
  const parsed = PodLevelResourcesSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    onInvalid('spec.resources', new Error(issues));
    return new Map();
  }
  const amounts = resourceAmounts(parsed.data[kind], `spec.resources.${kind}`, onInvalid);
  return new Map([...amounts].filter(([name]) => isSupportedPodLevelResource(name)));
}

function isPodResizeInfeasible(pod: Pod): boolean {
  return pod.status?.conditions?.find((c) => c.type === 'PodResizePending')?.reason === 'Infeasible';
}

/**
 * Upstream AggregateContainerRequests/Limits: the containers summed, sidecars (restartable init
 * containers) added, and the max with each init container plus the sidecars started before it.
 */
function aggregate(pod: Pod, options: PodResourcesOptions, own: (c: Container, where: string) => ResourceAmounts): ResourceAmounts {
  const of = (c: Container, where: string, kind: 'container' | 'init'): ResourceAmounts => {
    const amounts = own(c, where);
    if (options.keep !== undefined) for (const name of [...amounts.keys()]) if (!options.keep(name)) amounts.delete(name);
    options.onContainer?.(c, amounts, kind);
    return amounts;
  };
  const total: ResourceAmounts = new Map();
  pod.spec.containers.forEach((c, i) => add(total, of(c, `spec.containers[${i}]`, 'container')));
  const sidecars: ResourceAmounts = new Map();
  const initMax: ResourceAmounts = new Map();
  (pod.spec.initContainers ?? []).forEach((c, i) => {
    const amounts = of(c, `spec.initContainers[${i}]`, 'init');
    if (isRestartableInitContainer(c)) {
      // A sidecar keeps running: it counts with the containers, and under every later init container.
      add(total, amounts);
      add(sidecars, amounts);
      max(initMax, sidecars);
    } else {
      const during = new Map(amounts);
      add(during, sidecars);
      max(initMax, during);
    }
  });
  max(total, initMax);
  return total;
}

/**
 * Upstream resource.PodRequests: the aggregate of the containers' requests, pod-level requests
 * overriding cpu, memory and hugepages, then the pod overhead added. Unlike upstream the
 * quantities are rounded up per container rather than once per pod: only sub-millicore or
 * sub-byte fractions can tell the two apart.
 */
export function podRequests(pod: Pod, options: PodResourcesOptions): ResourceAmounts {
  const statuses = new Map<string, ContainerStatus>();
  if (options.useStatusResources === true) {
    for (const cs of [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])]) statuses.set(cs.name, cs);
  }
  const infeasible = options.useStatusResources === true && isPodResizeInfeasible(pod);
  const reqs = aggregate(pod, options, (container, where) => {
    const spec = resourceAmounts(container.resources?.requests, `${where}.resources.requests`, options.onInvalid);
    const cs = statuses.get(container.name);
    if (cs?.resources === undefined) return spec;
    const status = resourceAmounts(cs.resources.requests, `status of ${container.name}: resources.requests`, options.onInvalid);
    const allocated = resourceAmounts(cs.allocatedResources, `status of ${container.name}: allocatedResources`, options.onInvalid);
    const result = infeasible ? new Map(status) : new Map(spec);
    if (!infeasible) max(result, status);
    max(result, allocated);
    return result;
  });
  for (const [name, value] of podLevel(pod, 'requests', options.onInvalid)) reqs.set(name, value);
  add(reqs, resourceAmounts(pod.spec.overhead, 'spec.overhead', options.onInvalid));
  return reqs;
}

/**
 * Upstream resource.PodLimits: the aggregate of the containers' limits, pod-level limits
 * overriding cpu, memory and hugepages, then the pod overhead added to the limits present (a
 * resource without a limit stays unlimited).
 */
export function podLimits(pod: Pod, options: Omit<PodResourcesOptions, 'useStatusResources'>): ResourceAmounts {
  const limits = aggregate(pod, options, (container, where) =>
    resourceAmounts(container.resources?.limits, `${where}.resources.limits`, options.onInvalid),
  );
  for (const [name, value] of podLevel(pod, 'limits', options.onInvalid)) limits.set(name, value);
  for (const [name, value] of resourceAmounts(pod.spec.overhead, 'spec.overhead', options.onInvalid)) {
    const limit = limits.get(name);
    if (limit !== undefined) limits.set(name, limit + value);
  }
  return limits;
}

/** Whether the pod sets pod-level limits for `name` (they override the containers'). */
export function hasPodLevelLimit(pod: Pod, name: string): boolean {
  return (podLevel(pod, 'limits', () => undefined).get(name) ?? 0) > 0;
}
