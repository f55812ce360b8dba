/** Upstream eviction signals (pkg/kubelet/eviction/api/types.go). */
export const Signal = {
  MemoryAvailable: 'memory.available',
  AllocatableMemoryAvailable: 'allocatableMemory.available',
  NodeFsAvailable: 'nodefs.available',
  NodeFsInodesFree: 'nodefs.inodesFree',
  ImageFsAvailable: 'imagefs.available',
  ImageFsInodesFree: 'imagefs.inodesFree',
  ContainerFsAvailable: 'containerfs.available',
  ContainerFsInodesFree: 'containerfs.inodesFree',
  PIDAvailable: 'pid.available',
} as const;
export type EvictionSignal = (typeof Signal)[keyof typeof Signal];
export const EVICTION_SIGNALS: readonly EvictionSignal[] = Object.values(Signal);

/** The node conditions eviction drives. */
export const NodeConditionType = {
  MemoryPressure: 'MemoryPressure',
  DiskPressure: 'DiskPressure',
  PIDPressure: 'PIDPressure',
} as const;
export type PressureConditionType = (typeof NodeConditionType)[keyof typeof NodeConditionType];

/** Upstream signalToNodeCondition. */
export const SIGNAL_TO_NODE_CONDITION: Readonly<Record<EvictionSignal, PressureConditionType>> = {
  'memory.available': 'MemoryPressure',
  'allocatableMemory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'containerfs.available': 'DiskPressure',
  'containerfs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

/** The resource a signal starves (upstream signalToResource; `inodes` and `pids` are kubelet-internal names). */
export type StarvedResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';
export const SIGNAL_TO_RESOURCE: Readonly<Record<EvictionSignal, StarvedResource>> = {
  'memory.available': 'memory',
  'allocatableMemory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'imagefs.available': 'ephemeral-storage',
  'containerfs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'inodes',
  'imagefs.inodesFree': 'inodes',
  'containerfs.inodesFree': 'inodes',
  'pid.available': 'pids',
};

/** Linux defaults for evictionHard (pkg/kubelet/eviction/defaults_linux.go). */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
});

/** Upstream defaults. */
export const DEFAULT_MONITORING_INTERVAL_MS = 10_000;
export const DEFAULT_PRESSURE_TRANSITION_PERIOD_MS = 5 * 60_000;
/** Upstream podCleanupTimeout / podCleanupPollFreq: how long to wait for an evicted pod's resources to go. */
export const DEFAULT_POD_CLEANUP_TIMEOUT_MS = 30_000;
export const POD_CLEANUP_POLL_MS = 1_000;
/** Upstream immediateEvictionGracePeriodSeconds: the grace period of a hard-threshold eviction. */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;

/** The reason of evicted and refused pods (upstream eviction.Reason). */
export const EVICTED_REASON = 'Evicted';
/** Upstream v1.PodReasonTerminationByKubelet, on the DisruptionTarget condition of an evicted pod. */
export const TERMINATION_BY_KUBELET_REASON = 'TerminationByKubelet';

// Upstream scheduling.SystemCriticalPriority and the two built-in classes: one home, @kubelet-ts/api.
export { SYSTEM_CRITICAL_PRIORITY, SYSTEM_PRIORITY_CLASSES } from '@kubelet-ts/api';

/** Taint key a BestEffort pod may tolerate to be admitted under memory pressure (upstream TaintNodeMemoryPressure). */
export const TAINT_NODE_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
