import type { Container, Pod } from '@kubelet-ts/api';
import { getPodQOSClass, isRestartableInitContainer, isSupportedPodLevelResource, parseQuantity } from '@kubelet-ts/api';
import type { MemoryBlock, MemoryTable, NumaNodeState } from '@kubelet-ts/checkpoint-manager';
import { forEachSubset } from '@kubelet-ts/common';
import { MemoryManagerError } from '../errors.js';
import type { SystemReservedMemory } from '../reserved-memory.js';
import { hugePageResourceName } from '../topology.js';
import type { MemoryTopology } from '../topology.js';

/** A NUMA affinity (structurally @kubelet-ts/topology-manager's TopologyHint); numaNodes null is "any". */
export interface Hint {
  numaNodes: readonly number[] | null;
  preferred: boolean;
}

export type MachineState = Record<string, NumaNodeState>;
export type Assignments = Record<string, Record<string, MemoryBlock[]>>;

/** The memory manager's state (upstream state.State): the NUMA nodes' tables and the containers' blocks. */
export interface PolicyState {
  machine: MachineState;
  entries: Assignments;
}

export type Hints = Record<string, Hint[]>;

/** Upstream staticPolicy (policy_static.go): state in, state mutated; errors carry upstream's texts. */
export interface StaticPolicy {
  /** Upstream validateState: the machine state to keep (a fresh one when it was empty), or throws INVALID_STATE. */
  validateState(state: PolicyState): { machine: MachineState; changed: boolean };
  /** Whether the policy pins the pod's memory (upstream's Allocate: a Guaranteed pod without pod-level resources). */
  pins(pod: Pod): boolean;
  allocate(state: PolicyState, pod: Pod, container: Container, hint: Hint): boolean;
  removeContainer(state: PolicyState, podUID: string, containerName: string): boolean;
  /** null: no preference. */
  topologyHints(state: PolicyState, pod: Pod, container: Container): Hints | null;
  podTopologyHints(state: PolicyState, pod: Pod): Hints | null;
  allocatableMemory(state: PolicyState): MemoryBlock[];
}

const fail = (message: string): never => {
  throw new MemoryManagerError('ALLOCATION_FAILED', `[memorymanager] ${message}`);
};
const invalid = (message: string): never => {
  throw new MemoryManagerError('INVALID_STATE', `[memorymanager] ${message}`);
};
const isMemoryResource = (name: string): boolean => name === 'memory' || name.startsWith('hugepages-');
const sorted = (nodes: readonly number[]): number[] => [...nodes].sort((a, b) => a - b);
const keyOf = (nodes: readonly number[] | null): string => sorted(nodes ?? []).join(',');
const maskValue = (nodes: readonly number[]): number => nodes.reduce((m, n) => m | (1 << n), 0);
const groupsEqual = (a: readonly number[] | null, b: readonly number[] | null): boolean => keyOf(a) === keyOf(b);
const table = (machine: MachineState, node: number, resource: string): MemoryTable | undefined =>
  machine[String(node)]?.memoryMap[resource] ?? undefined;
const clone = <T>(value: T): T => structuredClone(value);

// Upstream IsPodLevelResourcesSet (PodLevelResources is on by default in 1.34): the static policy leaves such pods alone.
function hasPodLevelResources(pod: Pod): boolean {
  const r = (pod.spec as { resources?: { requests?: Record<string, unknown>; limits?: Record<string, unknown> } | null }).resources;
  return [...Object.keys(r?.requests ?? {}), ...Object.keys(r?.limits ?? {})].some(isSupportedPodLevelResource);
}

/**
 * Upstream getRequestedResources: the container's memory and huge page requests in bytes; with
 * InPlacePodVerticalScaling (on by default) the status's allocatedResources when the status has them.
 */
export function requestedResources(pod: Pod, container: Container): Map<string, number> {
  const statuses = [
    ...(pod.status?.containerStatuses ?? []),
    ...(isRestartableInitContainer(container) ? (pod.status?.initContainerStatuses ?? []) : []),
  ];
  const allocated = statuses.find((s) => s.name === container.name)?.allocatedResources;
  const resources = allocated ?? container.resources?.requests ?? {};
  const out = new Map<string, number>();
  for (const name of Object.keys(resources).sort()) {
    if (!isMemoryResource(name)) continue;
    const bytes = parseQuantity(resources[name]!);
    if (!Number.isInteger(bytes)) fail('failed to represent quantity as int64');
    out.set(name, bytes);
  }
  return out;
}

// Upstream getPodRequestedResources: the larger of the long-running containers' sum and the biggest init container moment.
function podRequestedResources(pod: Pod): Map<string, number> {
  const byInit = new Map<string, number>();
  const byRestartable = new Map<string, number>();
  for (const c of pod.spec.initContainers ?? []) {
    for (const [name, size] of requestedResources(pod, c)) {
      if (!byInit.has(name)) byInit.set(name, 0);
      if (isRestartableInitContainer(c)) byRestartable.set(name, (byRestartable.get(name) ?? 0) + size);
      else if ((byRestartable.get(name) ?? 0) + size > byInit.get(name)!) byInit.set(name, (byRestartable.get(name) ?? 0) + size);
    }
  }
  const byApp = new Map<string, number>();
  for (const c of pod.spec.containers)
    for (const [name, size] of requestedResources(pod, c)) byApp.set(name, (byApp.get(name) ?? 0) + size);
  const out = new Map<string, number>();
  for (const [name, size] of [...byApp].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out.set(name, Math.max(size + (byRestartable.get(name) ?? 0), byInit.get(name) ?? 0));
  }
  return out;
}

// Upstream findBestHint: preferred first, then the narrowest (fewest nodes, then the lower mask).
function findBestHint(hints: readonly Hint[] | undefined): Hint {
  let best: Hint = { numaNodes: null, preferred: false };
  for (const hint of hints ?? []) {
    if (best.numaNodes === null || (hint.preferred && !best.preferred)) {
      best = hint;
      continue;
    }
    if (hint.preferred === best.preferred && isNarrowerThan(hint.numaNodes!, best.numaNodes)) best = hint;
  }
  return best;
}

function isNarrowerThan(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length ? maskValue(a) < maskValue(b) : a.length < b.length;
}

// Upstream isHintInGroup: every node of `hint` is in `group`.
const isHintInGroup = (hint: readonly number[], group: readonly number[]): boolean => hint.every((n) => group.includes(n));

function isAffinitySatisfyRequest(machine: MachineState, nodes: readonly number[] | null, requested: Map<string, number>): boolean {
  for (const [name, size] of requested) {
    const free = (nodes ?? []).reduce((sum, n) => sum + (table(machine, n, name)?.free ?? 0), 0);
    if (free < size) return false;
  }
  return true;
}

// A NUMA node serves either single-node allocations or one group of nodes, never both (upstream's rule).
function isAffinityViolatingNUMAAllocations(machine: MachineState, nodes: readonly number[]): boolean {
  if (nodes.length === 1) return false;
  return nodes.some((n) => {
    const node = machine[String(n)];
    if (node === undefined || node.numberOfAssignments === 0) return false;
    return (node.cells ?? []).length === 1 || !groupsEqual(node.cells, nodes);
  });
}

// Upstream updateMachineState (and the same walk in validateState): the request taken from the nodes in order.
function reserve(machine: MachineState, nodes: readonly number[], resource: string, requested: number): void {
  let size = requested;
  for (const n of nodes) {
    const node = machine[String(n)];
    if (node === undefined) continue;
    node.numberOfAssignments += 1;
    node.cells = [...nodes];
    if (size === 0) continue;
    const t = node.memoryMap[resource];
    if (t === undefined || t === null || t.free <= 0) continue;
    if (t.free >= size) {
      t.reserved += size;
      t.free -= size;
      size = 0;
      continue;
    }
    size -= t.free;
    t.reserved += t.free;
    t.free = 0;
  }
}

export function createStaticPolicy(topology: MemoryTopology, systemReserved: SystemReservedMemory): StaticPolicy {
  // pod UID → NUMA nodes key → resource → bytes the pod's init containers hold and its app containers may reuse.
  const reusable = new Map<string, Map<string, Map<string, number>>>();
  const reservedOf = (node: number, resource: string): number => systemReserved.get(node)?.get(resource) ?? 0;

  const defaultMachineState = (): MachineState => {
    const machine: MachineState = {};
    for (const node of topology.nodes) {
      const memoryMap: Record<string, MemoryTable> = {};
      let hugePages = 0;
      for (const hp of node.hugePages) {
        const name = hugePageResourceName(hp.pageSizeKiB);
        const reserved = reservedOf(node.id, name);
        const total = hp.numPages * hp.pageSizeKiB * 1024;
        memoryMap[name] = { total, systemReserved: reserved, allocatable: total - reserved, reserved: 0, free: total - reserved };
        hugePages += total;
      }
      const reserved = reservedOf(node.id, 'memory');
      const allocatable = node.memoryBytes - reserved - hugePages;
      memoryMap['memory'] = { total: node.memoryBytes, systemReserved: reserved, allocatable, reserved: 0, free: allocatable };
      machine[String(node.id)] = { numberOfAssignments: 0, memoryMap, cells: [node.id] };
    }
    return machine;
  };

  const podReusable = (podUID: string, nodes: readonly number[] | null, resource: string): number =>
    reusable.get(podUID)?.get(keyOf(nodes))?.get(resource) ?? 0;

  const isRegularInitContainer = (pod: Pod, container: Container): boolean => {
    const init = (pod.spec.initContainers ?? []).find((c) => c.name === container.name);
    return init !== undefined && !isRestartableInitContainer(init);
  };

  const updatePodReusableMemory = (pod: Pod, container: Container, blocks: readonly MemoryBlock[]): void => {
    const uid = pod.metadata.uid;
    for (const other of [...reusable.keys()]) if (other !== uid) reusable.delete(other);
    if (isRegularInitContainer(pod, container)) {
      const byNodes = reusable.get(uid) ?? new Map<string, Map<string, number>>();
      reusable.set(uid, byNodes);
      for (const b of blocks) {
        const byResource = byNodes.get(keyOf(b.numaAffinity)) ?? new Map<string, number>();
        byNodes.set(keyOf(b.numaAffinity), byResource);
        if (b.size > (byResource.get(b.type) ?? 0)) byResource.set(b.type, b.size);
      }
      return;
    }
    for (const b of blocks) {
      const current = podReusable(uid, b.numaAffinity, b.type);
      if (current === 0) continue;
      reusable
        .get(uid)!
        .get(keyOf(b.numaAffinity))!
        .set(b.type, b.size >= current ? 0 : current - b.size);
    }
  };

  // Upstream calculateHints: every NUMA node set that can hold the request; the smallest such sets preferred.
  const calculateHints = (machine: MachineState, pod: Pod, requested: Map<string, number>): Hints => {
    const nodes = Object.keys(machine)
      .map(Number)
      .sort((a, b) => a - b);
    let minAffinitySize = nodes.length;
    const hints: Hints = {};
    forEachSubset(nodes, (mask) => {
      const single = mask.length === 1;
      const sum = (name: string, field: 'free' | 'allocatable'): number =>
        mask.reduce((total, n) => total + (table(machine, n, name)?.[field] ?? 0), 0);
      for (const [name, size] of requested) if (sum(name, 'allocatable') < size) return;
      if (mask.length < minAffinitySize) minAffinitySize = mask.length;
      // A node grouped with others cannot serve a single-node allocation.
      if (single && (machine[String(mask[0])]?.cells ?? []).length > 1) return;
      for (const n of mask) {
        const node = machine[String(n)]!;
        if (!single && node.numberOfAssignments > 0 && ((node.cells ?? []).length === 1 || !groupsEqual(node.cells, mask))) return;
      }
      for (const [name, size] of requested) if (sum(name, 'free') + podReusable(pod.metadata.uid, mask, name) < size) return;
      for (const name of requested.keys()) (hints[name] ??= []).push({ numaNodes: mask, preferred: false });
    });
    for (const name of requested.keys()) for (const hint of hints[name] ?? []) hint.preferred = hint.numaNodes!.length === minAffinitySize;
    return hints;
  };

  // Upstream regenerateHints: an allocated container's hints are its blocks' nodes, or no preference when they differ from the request.
  const regenerateHints = (blocks: readonly MemoryBlock[], requested: Map<string, number>): Hints | null => {
    const hints: Hints = Object.fromEntries([...requested.keys()].map((name) => [name, []]));
    if (blocks.length !== requested.size) return null;
    for (const b of blocks) {
      if (requested.get(b.type) !== b.size) return null;
      hints[b.type]!.push({ numaNodes: sorted(b.numaAffinity ?? []), preferred: true });
    }
    return hints;
  };

  // Upstream updateInitContainersMemoryBlocks: the init containers' blocks shrink by what this container reuses.
  const updateInitContainersMemoryBlocks = (state: PolicyState, pod: Pod, container: Container, blocks: readonly MemoryBlock[]): void => {
    const uid = pod.metadata.uid;
    for (const block of blocks) {
      let size = block.size;
      for (const init of pod.spec.initContainers ?? []) {
        if (init.name === container.name || size === 0) break;
        if (isRestartableInitContainer(init)) continue;
        const initBlocks = state.entries[uid]?.[init.name];
        if (initBlocks === undefined || initBlocks.length === 0) continue;
        for (const b of initBlocks) {
          if (b.size === 0 || b.type !== block.type || keyOf(b.numaAffinity) !== keyOf(block.numaAffinity)) continue;
          if (b.size > size) {
            b.size -= size;
            size = 0;
          } else {
            size -= b.size;
            b.size = 0;
          }
        }
      }
    }
  };

  const guaranteed = (pod: Pod): boolean => getPodQOSClass(pod) === 'Guaranteed' && !hasPodLevelResources(pod);

  return {
    validateState(state) {
      if (Object.keys(state.machine).length === 0) {
        if (Object.keys(state.entries).length !== 0) invalid('machine state can not be empty when it has memory assignments');
        return { machine: defaultMachineState(), changed: true };
      }
      const expected = defaultMachineState();
      for (const [uid, containers] of Object.entries(state.entries)) {
        for (const [name, blocks] of Object.entries(containers)) {
          for (const b of blocks) {
            for (const n of b.numaAffinity ?? []) {
              const node = expected[String(n)];
              if (node === undefined) invalid(`(pod: ${uid}, container: ${name}) the memory assignment uses the NUMA that does not exist`);
              if (node!.memoryMap[b.type] === undefined)
                invalid(`(pod: ${uid}, container: ${name}) the memory assignment uses memory resource that does not exist`);
            }
            reserve(expected, b.numaAffinity ?? [], b.type, b.size);
          }
        }
      }
      if (!machineStatesEqual(state.machine, expected)) invalid('the expected machine state is different from the real one');
      return { machine: state.machine, changed: false };
    },

    pins: guaranteed,

    allocate(state, pod, container, topologyHint) {
      if (!guaranteed(pod)) return false;
      const uid = pod.metadata.uid;
      const existing = state.entries[uid]?.[container.name];
      if (existing !== undefined) {
        updatePodReusableMemory(pod, container, existing);
        return false;
      }
      const requested = requestedResources(pod, container);
      const machine = clone(state.machine);
      let best = topologyHint;
      // No affinity from the topology manager (its none policy): the one it would have chosen.
      if (topologyHint.numaNodes === null) {
        const hints = calculateHints(machine, pod, requested);
        if (Object.keys(hints).length < 1) fail('failed to get the default NUMA affinity, no NUMA nodes with enough memory is available');
        const defaultHint = findBestHint(hints['memory']);
        if (!defaultHint.preferred && best.preferred) fail('failed to find the default preferred hint');
        best = defaultHint;
      }
      // The merged hint can be narrower than this manager's: extend it to a set that holds the request.
      if (!isAffinitySatisfyRequest(machine, best.numaNodes, requested)) {
        const nodes = best.numaNodes ?? [];
        const candidates = (calculateHints(machine, pod, requested)['memory'] ?? []).filter((h) => isHintInGroup(nodes, h.numaNodes!));
        if (candidates.length < 1) fail('failed to find NUMA nodes to extend the current topology hint');
        const extended = findBestHint(candidates);
        if (!extended.preferred && best.preferred) fail('failed to find the extended preferred hint');
        best = extended;
      }
      const nodes = sorted(best.numaNodes ?? []);
      if (isAffinityViolatingNUMAAllocations(machine, nodes)) fail('preferred hint violates NUMA node allocation');
      const blocks: MemoryBlock[] = [];
      for (const [name, size] of requested) {
        blocks.push({ numaAffinity: [...nodes], type: name, size });
        const reused = podReusable(uid, nodes, name);
        reserve(machine, nodes, name, reused >= size ? 0 : size - reused);
      }
      updatePodReusableMemory(pod, container, blocks);
      state.machine = machine;
      (state.entries[uid] ??= {})[container.name] = blocks;
      updateInitContainersMemoryBlocks(state, pod, container, blocks);
      return true;
    },

    removeContainer(state, podUID, containerName) {
      const blocks = state.entries[podUID]?.[containerName];
      if (blocks === undefined) return false;
      delete state.entries[podUID]![containerName];
      if (Object.keys(state.entries[podUID]!).length === 0) delete state.entries[podUID];
      for (const b of blocks) {
        let released = b.size;
        for (const n of b.numaAffinity ?? []) {
          const node = state.machine[String(n)];
          if (node === undefined) continue;
          node.numberOfAssignments -= 1;
          // A node without allocations leaves its group.
          if (node.numberOfAssignments === 0) node.cells = [n];
          if (released === 0) continue;
          const t = node.memoryMap[b.type];
          if (t === undefined || t === null || t.reserved === 0) continue;
          if (t.reserved < released) {
            released -= t.reserved;
            t.free += t.reserved;
            t.reserved = 0;
            continue;
          }
          t.free += released;
          t.reserved -= released;
          released = 0;
        }
      }
      return true;
    },

    topologyHints(state, pod, container) {
      if (!guaranteed(pod)) return null;
      const requested = requestedResources(pod, container);
      const blocks = state.entries[pod.metadata.uid]?.[container.name];
      // Already allocated (a kubelet restart): the same hints again.
      if (blocks !== undefined) return regenerateHints(blocks, requested);
      return calculateHints(state.machine, pod, requested);
    },

    podTopologyHints(state, pod) {
      if (!guaranteed(pod)) return null;
      const requested = podRequestedResources(pod);
      for (const c of [...(pod.spec.initContainers ?? []), ...pod.spec.containers]) {
        const blocks = state.entries[pod.metadata.uid]?.[c.name];
        if (blocks !== undefined) return regenerateHints(blocks, requested);
      }
      return calculateHints(state.machine, pod, requested);
    },

    allocatableMemory(state) {
      const blocks: MemoryBlock[] = [];
      for (const id of Object.keys(state.machine).sort((a, b) => Number(a) - Number(b))) {
        const memoryMap = state.machine[id]!.memoryMap;
        for (const name of Object.keys(memoryMap).sort()) {
          const t = memoryMap[name];
          if (t !== undefined && t !== null && t.allocatable !== 0)
            blocks.push({ numaAffinity: [Number(id)], type: name, size: t.allocatable });
        }
      }
      return blocks;
    },
  };
}

// Upstream areMachineStatesEqual: same nodes, assignments, groups and tables; free and reserved compared summed over each group.
function machineStatesEqual(a: MachineState, b: MachineState): boolean {
  if (Object.keys(a).length !== Object.keys(b).length) return false;
  for (const [id, nodeA] of Object.entries(a)) {
    const nodeB = b[id];
    if (nodeA === null || nodeB === undefined || nodeB === null) return false;
    if (nodeA.numberOfAssignments !== nodeB.numberOfAssignments || !groupsEqual(nodeA.cells, nodeB.cells)) return false;
    const mapA = nodeA.memoryMap ?? {};
    if (Object.keys(mapA).length !== Object.keys(nodeB.memoryMap ?? {}).length) return false;
    for (const [name, tA] of Object.entries(mapA)) {
      const tB = nodeB.memoryMap[name];
      if (tA === null || tB === undefined || tB === null) return false;
      if (tA.total !== tB.total || tA.systemReserved !== tB.systemReserved || tA.allocatable !== tB.allocatable) return false;
      const sum = (machine: MachineState, field: 'free' | 'reserved'): number | undefined => {
        let total = 0;
        for (const n of nodeA.cells ?? []) {
          const t = table(machine, n, name);
          if (t === undefined) return undefined;
          total += t[field];
        }
        return total;
      };
      const freeA = sum(a, 'free');
      const reservedA = sum(a, 'reserved');
      if (freeA === undefined || reservedA === undefined || freeA !== sum(b, 'free') || reservedA !== sum(b, 'reserved')) return false;
    }
  }
  return true;
}
