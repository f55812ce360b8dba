export { CgroupError } from './errors.js';
export type { CgroupErrorCode } from './errors.js';
export { ROOT_CGROUP, cgroupName, parseCgroupfsName, parseSystemdName, toCgroupfs, toSystemd, renderCgroupName } from './cgroup-name.js';
export type { CgroupName, CgroupDriver } from './cgroup-name.js';
export {
  MIN_SHARES,
  MAX_SHARES,
  SHARES_PER_CPU,
  DEFAULT_CPU_PERIOD_US,
  MIN_QUOTA_US,
  milliCPUToShares,
  milliCPUToQuota,
  cpuSharesToWeight,
  podResourceAmounts,
  resourceConfigForPod,
} from './resources.js';
export type { ResourceConfig, PodResourceAmounts, PodResourceConfigOptions } from './resources.js';
export { createCgroupManager } from './cgroup-manager.js';
export type { CgroupManager, CgroupManagerOptions, CgroupMode, CgroupStats } from './cgroup-manager.js';
export type { CgroupFs } from './cgroup-fs.js';
export { systemdProperties, systemdUnit, createUnavailableSystemdClient, SYSTEMD_INFINITY, SYSTEMD_SOCKETS } from './systemd.js';
export type { SystemdClient, SystemdProperty } from './systemd.js';
export { createPodContainerManager, POD_CGROUP_PREFIX } from './pod-container-manager.js';
export type { PodContainerManager, PodContainerManagerOptions, QOSContainersInfo } from './pod-container-manager.js';
export { computeNodeAllocatable, evictionMemoryReservation, readMachineCapacity, countCpuList } from './node-allocatable.js';
export type { NodeAllocatable, NodeAllocatableInput } from './node-allocatable.js';
export { createContainerManager, KUBEPODS_CGROUP, BURSTABLE_CGROUP, BESTEFFORT_CGROUP } from './container-manager.js';
export type { ContainerManager, ContainerManagerOptions, PodCgroups } from './container-manager.js';
export { checkCgroupDriver, driverFromContainerdInfo } from './driver-check.js';
export type { CgroupDriverCheck, RuntimeDriverSource } from './driver-check.js';
