import type { Container, Pod } from '@kubelet-ts/api';
import type { CheckpointManager, CpuManagerState } from '@kubelet-ts/checkpoint-manager';
import {
  CPU_MANAGER_STATE_FILE,
  CheckpointError,
  decodeCpuManagerState,
  encodeCpuManagerState,
  restoreStateError,
} from '@kubelet-ts/checkpoint-manager';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, forEachSubset, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import { formatCpuSet, parseCpuSet } from './cpuset.js';
import { CpuManagerError } from './errors.js';
import { guaranteedCpus, longRunningContainers } from './internal/guaranteed.js';
import { takeByTopology } from './take-by-topology.js';
import type { CpuTopology } from './topology.js';

/** A NUMA affinity for the topology manager (structurally @kubelet-ts/topology-manager's TopologyHint). */
export interface TopologyHint {
  numaNodes: readonly number[] | null;
  preferred: boolean;
}

/** A running container as the runtime lists it. */
export interface RunningContainer {
  id: string;
  podUID: string;
  name: string;
}

/** What the reconcile loop needs from the runtime (CRI ListContainers and UpdateContainerResources). */
export interface CpuManagerRuntime {
  listRunningContainers(): Promise<readonly RunningContainer[]>;
  updateCpuset(containerId: string, cpuset: string): Promise<void>;
}

export interface CpuManagerOptions {
  /** `cpuManagerPolicy`: `none` (every container shares every CPU) or `static`. */
  policy: 'none' | 'static';
  topology: CpuTopology;
  /** `reservedSystemCPUs` (a cpuset list); when empty, `reservedMilliCpus` rounded up, taken by topology. */
  reservedCpus?: string;
  /** `kubeReserved.cpu` + `systemReserved.cpu` in millicores. */
  reservedMilliCpus?: number;
  /** Where `cpu_manager_state` lives (the root dir's checkpoint manager). */
  store: CheckpointManager;
  /** For messages: the checkpoint file's path. */
  statePath: string;
  runtime: CpuManagerRuntime;
  /** The pods the kubelet runs (upstream activePods); assignments of other pods are released. */
  activePods: () => readonly Pod[];
  /** `cpuManagerReconcilePeriod`, default 10 s. */
  reconcilePeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Upstream's kubelet_cpu_manager_pinning_requests_total and kubelet_cpu_manager_pinning_errors_total. Default: none. */
  metrics?: Metrics;
}

/** Upstream cpumanager.Manager. */
export interface CpuManager {
  readonly policy: 'none' | 'static';
  /** Restores (or writes) the checkpoint and checks it against the machine; throws where upstream does not start. */
  start(): Promise<void>;
  /**
   * Admission (upstream's resource allocator admit handler): exclusive CPUs for the pod's
   * Guaranteed integer-CPU containers, or the refusal upstream gives when they do not fit.
   */
  admit(pod: Pod): { admit: boolean; reason?: string; message?: string };
  /**
   * The topology manager's hint provider (upstream GetTopologyHints / GetPodTopologyHints): the
   * NUMA node sets that can hold the container's (or pod's) exclusive CPUs, the smallest preferred.
   * No preference (`{}`) under `none` and for containers without exclusive CPUs.
   */
  topologyHints(pod: Pod, container: Container): Record<string, TopologyHint[] | null>;
  podTopologyHints(pod: Pod): Record<string, TopologyHint[] | null>;
  /** Exclusive CPUs for one container, within `affinity`'s NUMA nodes first (upstream Allocate); throws NOT_ENOUGH_CPUS. */
  allocate(pod: Pod, container: Container, affinity: readonly number[] | null): void;
  /** Gives back every CPU of the pod. */
  release(pod: Pod): void;
  /** The cpuset a container is created with: its exclusive CPUs or the shared pool; undefined under `none`. */
  cpusetFor(podUID: string, containerName: string): string | undefined;
  /** Releases assignments of pods no longer active and moves running containers to their cpuset. */
  reconcile(): Promise<void>;
  /** The reconcile loop, every reconcile period, until the signal. */
  run(signal: AbortSignal): Promise<void>;
  /** The state as the checkpoint holds it. */
  state(): CpuManagerState;
  /** Resolves when every checkpoint write started so far is done (admission writes in the background). */
  flush(): Promise<void>;
}

export function createCpuManager(options: CpuManagerOptions): CpuManager {
  const logger = options.logger ?? noopLogger;
  const clock = options.clock ?? systemClock;
  const all = options.topology.cpus.map((c) => c.id).sort((a, b) => a - b);
  let reserved: number[] = [];
  let defaultSet: number[] = [...all];
  const entries = new Map<string, Map<string, number[]>>();
  const applied = new Map<string, string>();
  let writes: Promise<void> = Promise.resolve();
  const metrics = options.metrics ?? noopMetrics;
  const pinningRequests = metrics.counter({
    name: 'kubelet_cpu_manager_pinning_requests_total',
    help: 'The number of cpu core allocations which required pinning.',
  });
  const pinningErrors = metrics.counter({
    name: 'kubelet_cpu_manager_pinning_errors_total',
    help: 'The number of cpu core allocations which required pinning failed.',
  });

  const snapshot = (): CpuManagerState => ({
    policyName: options.policy,
    defaultCpuSet: options.policy === 'none' ? '' : formatCpuSet(defaultSet),
    entries: Object.fromEntries(
      [...entries].map(([uid, c]) => [uid, Object.fromEntries([...c].map(([name, set]) => [name, formatCpuSet(set)]))]),
    ),
  });
  // Writes in order, each with the state of its time: the file always holds a consistent state.
  const persist = (): Promise<void> => {
    const data = encodeCpuManagerState(snapshot());
    writes = writes.then(() =>
      options.store
        .write(CPU_MANAGER_STATE_FILE, data)
        .catch((err: unknown) => logger.error('Failed to write the CPU manager checkpoint', { err: errorMessage(err) })),
    );
    return writes;
  };
  const release = (uid: string, name?: string): void => {
    const pod = entries.get(uid);
    if (pod === undefined) return;
    for (const [container, set] of pod) {
      if (name !== undefined && container !== name) continue;
      defaultSet = [...defaultSet, ...set].sort((a, b) => a - b);
      pod.delete(container);
    }
    if (pod.size === 0) entries.delete(uid);
  };
  const numaOf = new Map(options.topology.cpus.map((c) => [c.id, c.numaNode]));
  const numaNodes = [...new Set(options.topology.cpus.map((c) => c.numaNode))].sort((a, b) => a - b);
  const exclusive = (pod: Pod, container: Container): number =>
    longRunningContainers(pod).some((c) => c.name === container.name) ? guaranteedCpus(pod, container) : 0;
  // Upstream generateCPUTopologyHints: every NUMA node set with enough of `available`; preferred
  // are those as small as the smallest set that could hold the request on an empty machine.
  const cpuHints = (available: readonly number[], request: number): TopologyHint[] => {
    let minSize = numaNodes.length;
    const hints: TopologyHint[] = [];
    forEachSubset(numaNodes, (nodes) => {
      const inMask = options.topology.cpus.filter((c) => nodes.includes(c.numaNode)).length;
      if (inMask >= request && nodes.length < minSize) minSize = nodes.length;
      if (available.filter((cpu) => nodes.includes(numaOf.get(cpu) ?? -1)).length >= request)
        hints.push({ numaNodes: nodes, preferred: false });
    });
    return hints.map((h) => ({ ...h, preferred: h.numaNodes!.length === minSize }));
  };
  const allocate = (pod: Pod, container: Container, affinity: readonly number[] | null = null): boolean => {
    const count = exclusive(pod, container);
    if (count === 0) return false;
    // Upstream's static Allocate counts every allocation that needs pinning, one already made (after a restart) too.
    pinningRequests.inc();
    if (entries.get(pod.metadata.uid)?.has(container.name) === true) return false;
    const available = defaultSet.filter((cpu) => !reserved.includes(cpu));
    // Upstream allocateCPUs: the CPUs of the affinity's NUMA nodes first, the rest from anywhere.
    const aligned = affinity === null ? [] : available.filter((cpu) => affinity.includes(numaOf.get(cpu) ?? -1));
    const first = takeByTopology(options.topology, aligned, Math.min(count, aligned.length)) ?? [];
    const rest = takeByTopology(
      options.topology,
      available.filter((cpu) => !first.includes(cpu)),
      count - first.length,
    );
    const set = rest === undefined ? undefined : [...first, ...rest].sort((a, b) => a - b);
    if (set === undefined) {
      pinningErrors.inc();
      throw new CpuManagerError(
        'NOT_ENOUGH_CPUS',
        `not enough cpus available to satisfy request: requested=${count}, available=${available.length}`,
      );
    }
    defaultSet = defaultSet.filter((cpu) => !set.includes(cpu));
    const podEntries = entries.get(pod.metadata.uid) ?? new Map<string, number[]>();
    podEntries.set(container.name, set);
    entries.set(pod.metadata.uid, podEntries);
    logger.info('Allocated exclusive CPUs', {
      pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
      container: container.name,
      cpuset: formatCpuSet(set),
    });
    return true;
  };

  return {
    policy: options.policy,
    async start() {
      if (options.policy === 'static') reserved = reservedCpus(options, all);
      await restore(options, (state) => {
        if (options.policy === 'none') return;
        const restored = validateState(state, all, reserved);
        defaultSet = restored.defaultSet;
        for (const [uid, containers] of Object.entries(restored.entries)) entries.set(uid, new Map(Object.entries(containers)));
      });
      await persist();
      logger.info('CPU manager started', {
        policy: options.policy,
        reserved: formatCpuSet(reserved),
        defaultCpuSet: snapshot().defaultCpuSet,
      });
    },
    admit(pod) {
      if (options.policy === 'none') return { admit: true };
      let changed = false;
      try {
        for (const container of longRunningContainers(pod)) changed = allocate(pod, container, null) || changed;
      } catch (err) {
        // Nothing of a refused pod is kept (upstream leaves it to the next stale-state cleanup).
        if (changed) release(pod.metadata.uid);
        return {
          admit: false,
          reason: 'UnexpectedAdmissionError',
          message: `Allocate failed due to ${errorMessage(err)}, which is unexpected`,
        };
      }
      if (changed) void persist();
      return { admit: true };
    },
    topologyHints(pod, container): Record<string, TopologyHint[] | null> {
      if (options.policy === 'none') return {};
      const count = exclusive(pod, container);
      if (count === 0) return {};
      const assigned = entries.get(pod.metadata.uid)?.get(container.name);
      return {
        cpu: cpuHints(assigned ?? defaultSet.filter((cpu) => !reserved.includes(cpu)), assigned === undefined ? count : assigned.length),
      };
    },
    podTopologyHints(pod): Record<string, TopologyHint[] | null> {
      if (options.policy === 'none') return {};
      // Upstream podGuaranteedCPUs: the largest init container, or every long-running container together.
      const init = Math.max(
        0,
        ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy !== 'Always').map((c) => guaranteedCpus(pod, c)),
      );
      const count = Math.max(
        init,
        longRunningContainers(pod).reduce((sum, c) => sum + guaranteedCpus(pod, c), 0),
      );
      if (count === 0) return {};
      return {
        cpu: cpuHints(
          defaultSet.filter((cpu) => !reserved.includes(cpu)),
          count,
        ),
      };
    },
    allocate(pod, container, affinity) {
      if (options.policy === 'none') return;
      if (allocate(pod, container, affinity)) void persist();
    },
    release(pod) {
      if (!entries.has(pod.metadata.uid)) return;
      release(pod.metadata.uid);
      void persist();
    },
    cpusetFor(podUID, containerName) {
      if (options.policy === 'none') return undefined;
      const set = entries.get(podUID)?.get(containerName);
      return formatCpuSet(set ?? defaultSet);
    },
    async reconcile() {
      if (options.policy === 'none') return;
      const active = new Map(options.activePods().map((p) => [p.metadata.uid, new Set(longRunningContainers(p).map((c) => c.name))]));
      let changed = false;
      for (const [uid, containers] of [...entries]) {
        for (const name of [...containers.keys()]) {
          if (active.get(uid)?.has(name) !== true) {
            release(uid, name);
            changed = true;
            logger.info('Released the CPUs of a container that is gone', { podUID: uid, container: name });
          }
        }
      }
      if (changed) await persist();
      const running = await options.runtime.listRunningContainers();
      const seen = new Set<string>();
      for (const c of running) {
        if (!active.has(c.podUID)) continue;
        seen.add(c.id);
        const cpuset = formatCpuSet(entries.get(c.podUID)?.get(c.name) ?? defaultSet);
        if (applied.get(c.id) === cpuset) continue;
        try {
          await options.runtime.updateCpuset(c.id, cpuset);
          applied.set(c.id, cpuset);
        } catch (err) {
          logger.error('Failed to update the cpuset of a container', { containerId: c.id, cpuset, err: errorMessage(err) });
        }
      }
      for (const id of [...applied.keys()]) if (!seen.has(id)) applied.delete(id);
    },
    async run(signal) {
      while (!signal.aborted) {
        await this.reconcile().catch((err: unknown) => logger.error('CPU manager reconcile failed', { err: errorMessage(err) }));
        try {
          await clock.sleep(options.reconcilePeriodMs ?? 10_000, signal);
        } catch {
          return;
        }
      }
    },
    state: snapshot,
    flush: () => writes,
  };
}

// Upstream NewStaticPolicy: reservedSystemCPUs, else ceil(kube + system reserved CPU) taken by topology.
function reservedCpus(options: CpuManagerOptions, all: readonly number[]): number[] {
  if (options.reservedCpus !== undefined && options.reservedCpus.trim() !== '') {
    const set = parseCpuSet(options.reservedCpus);
    const unknown = set.filter((cpu) => !all.includes(cpu));
    if (unknown.length > 0)
      throw new CpuManagerError(
        'INVALID_CONFIGURATION',
        `[cpumanager] reserved CPUs ${formatCpuSet(unknown)} are not on this machine (${formatCpuSet(all)})`,
      );
    return set;
  }
  const count = Math.ceil((options.reservedMilliCpus ?? 0) / 1000);
  if (count === 0)
    throw new CpuManagerError(
      'INVALID_CONFIGURATION',
      '[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater than zero',
    );
  const set = takeByTopology(options.topology, all, count);
  if (set === undefined)
    throw new CpuManagerError(
      'INVALID_CONFIGURATION',
      `[cpumanager] unable to reserve the required amount of CPUs (${count} of ${all.length})`,
    );
  return set;
}

// Upstream NewCheckpointState/restoreState: a missing checkpoint is a fresh one; another policy's, or a corrupt one, stops the kubelet.
async function restore(options: CpuManagerOptions, apply: (state: CpuManagerState) => void): Promise<void> {
  let problem: string;
  try {
    const decoded = decodeCpuManagerState(await options.store.read(CPU_MANAGER_STATE_FILE), options.statePath);
    if (decoded.state.policyName !== options.policy) {
      problem = `configured policy ${JSON.stringify(options.policy)} differs from state checkpoint policy ${JSON.stringify(decoded.state.policyName)}`;
    } else if (decoded.version === 1 && Object.keys(decoded.state.entriesByContainerId).length > 0) {
      problem = 'the first checkpoint format with assignments cannot be migrated by kubelet-ts';
    } else {
      apply(decoded.version === 2 ? decoded.state : { ...decoded.state, entries: {} });
      return;
    }
  } catch (err) {
    if (CheckpointError.is(err, 'NOT_FOUND')) return;
    problem = errorMessage(err);
  }
  throw new CpuManagerError('INVALID_STATE', restoreStateError('CPU manager', options.statePath, problem).message);
}

// Upstream staticPolicy.validateState.
function validateState(
  state: CpuManagerState,
  all: readonly number[],
  reserved: readonly number[],
): { defaultSet: number[]; entries: Record<string, Record<string, number[]>> } {
  const defaultSet = parseCpuSet(state.defaultCpuSet);
  const entries = Object.fromEntries(
    Object.entries(state.entries).map(([uid, c]) => [uid, Object.fromEntries(Object.entries(c).map(([n, s]) => [n, parseCpuSet(s)]))]),
  );
  const assigned = Object.values(entries).flatMap((c) => Object.entries(c));
  if (defaultSet.length === 0 && assigned.length === 0) return { defaultSet: [...all], entries };
  const fail = (message: string): never => {
    throw new CpuManagerError('INVALID_STATE', `[cpumanager] ${message}`);
  };
  if (defaultSet.length === 0) fail('default cpuset cannot be empty');
  if (!reserved.every((cpu) => defaultSet.includes(cpu))) {
    fail(`not all reserved cpus: "${formatCpuSet(reserved)}" are present in defaultCpuSet: "${formatCpuSet(defaultSet)}"`);
  }
  for (const [name, set] of assigned) {
    if (set.some((cpu) => defaultSet.includes(cpu)))
      fail(`container: ${name}, cpuset: "${formatCpuSet(set)}" overlaps with default cpuset "${formatCpuSet(defaultSet)}"`);
  }
  const inState = [...defaultSet, ...assigned.flatMap(([, set]) => set)];
  if (formatCpuSet(inState) !== formatCpuSet(all) || inState.length !== all.length) {
    fail(`current set of available CPUs "${formatCpuSet(all)}" doesn't match with CPUs in state "${formatCpuSet(inState)}"`);
  }
  return { defaultSet, entries };
}
