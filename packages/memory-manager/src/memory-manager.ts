import type { Container, Pod, Quantity } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import type { CheckpointManager, MemoryBlock, MemoryManagerState } from '@kubelet-ts/checkpoint-manager';
import {
  CheckpointError,
  MEMORY_MANAGER_STATE_FILE,
  decodeMemoryManagerState,
  encodeMemoryManagerState,
  restoreStateError,
} from '@kubelet-ts/checkpoint-manager';
import type { Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, noopLogger, noopMetrics } from '@kubelet-ts/common';
import { MemoryManagerError } from './errors.js';
import type { PolicyState, StaticPolicy } from './internal/static-policy.js';
import { createStaticPolicy } from './internal/static-policy.js';
import type { MemoryReservation } from './reserved-memory.js';
import { convertReservedMemory, validateReservedMemory } from './reserved-memory.js';
import type { MemoryTopology } from './topology.js';

/** A NUMA affinity for the topology manager (structurally @kubelet-ts/topology-manager's TopologyHint). */
export interface TopologyHint {
  numaNodes: readonly number[] | null;
  preferred: boolean;
}

/** `memoryManagerPolicy`. */
export type MemoryManagerPolicy = 'None' | 'Static';

export interface MemoryManagerOptions {
  policy: MemoryManagerPolicy;
  /** The machine's NUMA nodes and their memory (readMemoryTopology, or a fake). */
  topology: MemoryTopology;
  /** `reservedMemory`: what the system keeps per NUMA node (the Static policy requires some memory). */
  reservedMemory?: readonly MemoryReservation[];
  /**
   * What node allocatable reserves per memory resource (upstream GetNodeAllocatableReservation,
   * `nodeAllocatableReservation(…)`): `reservedMemory` must add up to it.
   */
  nodeAllocatableReservation?: Readonly<Record<string, Quantity>>;
  /** Where `memory_manager_state` lives (the root dir's checkpoint manager). */
  store: CheckpointManager;
  /** For messages: the checkpoint file's path. */
  statePath: string;
  /** The pods the kubelet runs (upstream activePods): the state of other pods' containers is removed. */
  activePods: () => readonly Pod[];
  /** Stale state is removed only once every pod source was seen (upstream sourcesReady). Default: always. */
  sourcesReady?: () => boolean;
  /**
   * The topology manager's chosen affinity of a container (upstream topologymanager.Store), read at
   * allocation for its `preferred` too. Default: the affinity `allocate` is given, not preferred.
   */
  topologyAffinity?: (podUID: string, containerName: string) => TopologyHint | undefined;
  logger?: Logger;
  /** Upstream's kubelet_memory_manager_pinning_requests_total and kubelet_memory_manager_pinning_errors_total. Default: none. */
  metrics?: Metrics;
}

/** Upstream memorymanager.Manager. */
export interface MemoryManager {
  readonly policy: MemoryManagerPolicy;
  /**
   * Checks `reservedMemory` against node allocatable and restores (or writes) the checkpoint,
   * validated against the machine; throws (MemoryManagerError) where upstream does not start.
   */
  start(): Promise<void>;
  /**
   * The topology manager's hint provider (upstream GetTopologyHints / GetPodTopologyHints): the NUMA
   * node sets that can hold a Guaranteed container's (or pod's) memory and huge pages, the smallest
   * preferred. No preference (`{}`) under `None` and for other pods.
   */
  topologyHints(pod: Pod, container: Container): Record<string, TopologyHint[] | null>;
  podTopologyHints(pod: Pod): Record<string, TopologyHint[] | null>;
  /** Upstream Allocate: a Guaranteed container's memory blocks on NUMA nodes; throws MemoryManagerError ALLOCATION_FAILED. */
  allocate(pod: Pod, container: Container, affinity: readonly number[] | null): void;
  /** Removes every container of the pod from the state (a pod that admission then refused). */
  release(pod: Pod): void;
  /** Upstream AddContainer, before a container starts: the plain init containers before it are done, their memory goes back. */
  addContainer(pod: Pod, container: Container): void;
  /** Upstream GetMemoryNUMANodes as cpuset.mems (`0,1`): undefined when the container has no blocks. */
  cpusetMemsFor(podUID: string, containerName: string): string | undefined;
  /** Upstream GetMemory: the container's blocks. */
  memoryBlocks(podUID: string, containerName: string): MemoryBlock[];
  /** Upstream GetAllocatableMemory: per NUMA node and resource, what the policy can give out. */
  allocatableMemory(): MemoryBlock[];
  /** Upstream removeStaleState: removes the containers that are no longer in an active pod (hints and allocation do it first). */
  removeStaleState(): void;
  /** The state as the checkpoint holds it. */
  state(): MemoryManagerState;
  /** Resolves when every checkpoint write started so far is done. */
  flush(): Promise<void>;
}

export function createMemoryManager(options: MemoryManagerOptions): MemoryManager {
  const logger = options.logger ?? noopLogger;
  const policyName = options.policy;
  let policy: StaticPolicy | undefined;
  const state: PolicyState = { machine: {}, entries: {} };
  let writes: Promise<void> = Promise.resolve();
  const metrics = options.metrics ?? noopMetrics;
  const pinningRequests = metrics.counter({
    name: 'kubelet_memory_manager_pinning_requests_total',
    help: 'The number of memory pages allocations which required pinning.',
  });
  const pinningErrors = metrics.counter({
    name: 'kubelet_memory_manager_pinning_errors_total',
    help: 'The number of memory pages allocations which required pinning that failed.',
  });

  const snapshot = (): MemoryManagerState =>
    structuredClone({ policyName, machineState: state.machine, entries: state.entries }) as MemoryManagerState;
  // Writes in order, each with the state of its time: the file always holds a consistent state.
  const persist = (): Promise<void> => {
    const data = encodeMemoryManagerState(snapshot());
    writes = writes.then(() =>
      options.store
        .write(MEMORY_MANAGER_STATE_FILE, data)
        .catch((err: unknown) => logger.error('Failed to store state to checkpoint', { err: errorMessage(err) })),
    );
    return writes;
  };
  const remove = (podUID: string, containerName: string): boolean => {
    if (policy === undefined || !policy.removeContainer(state, podUID, containerName)) return false;
    logger.info('RemoveContainer', { podUID, containerName });
    return true;
  };
  const removeStaleState = (): void => {
    if (policy === undefined || options.sourcesReady?.() === false) return;
    const active = new Map(
      options
        .activePods()
        .map((p) => [p.metadata.uid, new Set([...(p.spec.initContainers ?? []), ...p.spec.containers].map((c) => c.name))]),
    );
    let changed = false;
    for (const [uid, containers] of Object.entries(state.entries)) {
      for (const name of Object.keys(containers)) {
        if (active.get(uid)?.has(name) === true) continue;
        logger.info('RemoveStaleState removing state', { podUID: uid, containerName: name });
        changed = remove(uid, name) || changed;
      }
    }
    if (changed) void persist();
  };
  const hints = (computed: Record<string, TopologyHint[]> | null): Record<string, TopologyHint[] | null> => computed ?? {};

  return {
    policy: policyName,
    async start() {
      logger.info('Starting memorymanager', { policy: policyName });
      if (policyName === 'Static') {
        const reserved = options.reservedMemory ?? [];
        validateReservedMemory(options.topology, options.nodeAllocatableReservation ?? {}, reserved);
        const systemReserved = convertReservedMemory(options.topology, reserved);
        const totalMemory = [...systemReserved.values()].reduce((sum, node) => sum + (node.get('memory') ?? 0), 0);
        if (totalMemory <= 0)
          throw new MemoryManagerError('INVALID_CONFIGURATION', '[memorymanager] you should specify the system reserved memory');
        policy = createStaticPolicy(options.topology, systemReserved);
      }
      const found = await restore(options);
      if (found !== undefined) {
        state.machine = found.machineState as PolicyState['machine'];
        state.entries = found.entries;
      }
      let changed = found === undefined;
      if (policy !== undefined) {
        const validated = policy.validateState(state);
        state.machine = validated.machine;
        changed ||= validated.changed;
      }
      if (changed) await persist();
    },
    topologyHints(pod, container) {
      if (policy === undefined) return {};
      removeStaleState();
      try {
        return hints(policy.topologyHints(state, pod, container));
      } catch (err) {
        logger.error('Failed to get container requested resources', {
          podUID: pod.metadata.uid,
          containerName: container.name,
          err: errorMessage(err),
        });
        return {};
      }
    },
    podTopologyHints(pod) {
      if (policy === undefined) return {};
      removeStaleState();
      try {
        return hints(policy.podTopologyHints(state, pod));
      } catch (err) {
        logger.error('Failed to get pod requested resources', { podUID: pod.metadata.uid, err: errorMessage(err) });
        return {};
      }
    },
    allocate(pod, container, affinity) {
      if (policy === undefined) return;
      removeStaleState();
      const hint = options.topologyAffinity?.(pod.metadata.uid, container.name) ?? { numaNodes: affinity, preferred: false };
      // Upstream's static Allocate counts every allocation of a Guaranteed pod, one already made (after a restart) too.
      const pins = policy.pins(pod);
      if (pins) pinningRequests.inc();
      let allocated: boolean;
      try {
        allocated = policy.allocate(state, pod, container, hint);
      } catch (err) {
        if (pins) pinningErrors.inc();
        throw err;
      }
      if (!allocated) return;
      logger.info('Allocated exclusive memory', {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        containerName: container.name,
        numaNodes: this.cpusetMemsFor(pod.metadata.uid, container.name),
      });
      void persist();
    },
    release(pod) {
      let changed = false;
      for (const name of Object.keys(state.entries[pod.metadata.uid] ?? {})) changed = remove(pod.metadata.uid, name) || changed;
      if (changed) void persist();
    },
    addContainer(pod, container) {
      // Init containers run one after the other, to completion: those before this container are done.
      let changed = false;
      for (const init of pod.spec.initContainers ?? []) {
        if (init.name === container.name) break;
        if (isRestartableInitContainer(init)) continue;
        changed = remove(pod.metadata.uid, init.name) || changed;
      }
      if (changed) void persist();
    },
    cpusetMemsFor(podUID, containerName) {
      const nodes = new Set((state.entries[podUID]?.[containerName] ?? []).flatMap((b) => b.numaAffinity ?? []));
      return nodes.size === 0 ? undefined : [...nodes].sort((a, b) => a - b).join(',');
    },
    memoryBlocks: (podUID, containerName) => structuredClone(state.entries[podUID]?.[containerName] ?? []),
    allocatableMemory: () => policy?.allocatableMemory(state) ?? [],
    removeStaleState,
    state: snapshot,
    flush: () => writes,
  };
}

// Upstream NewCheckpointState/restoreState: a missing checkpoint is a fresh one; another policy's, or a corrupt one, stops the kubelet.
async function restore(options: MemoryManagerOptions): Promise<MemoryManagerState | undefined> {
  let problem: string;
  try {
    const decoded = decodeMemoryManagerState(await options.store.read(MEMORY_MANAGER_STATE_FILE), options.statePath);
    if (decoded.policyName === options.policy) return decoded;
    problem = `[memorymanager] configured policy ${JSON.stringify(options.policy)} differs from state checkpoint policy ${JSON.stringify(decoded.policyName)}`;
  } catch (err) {
    if (CheckpointError.is(err, 'NOT_FOUND')) return undefined;
    problem = errorMessage(err);
  }
  throw new MemoryManagerError('INVALID_STATE', restoreStateError('memory manager', options.statePath, problem).message);
}
