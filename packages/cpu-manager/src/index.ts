export { createCpuManager } from './cpu-manager.js';
export type { CpuManager, CpuManagerOptions, CpuManagerRuntime, RunningContainer, TopologyHint } from './cpu-manager.js';
export { formatCpuSet, parseCpuSet } from './cpuset.js';
export { CpuManagerError } from './errors.js';
export type { CpuManagerErrorCode } from './errors.js';
export { takeByTopology } from './take-by-topology.js';
export { readCpuTopology } from './topology.js';
export type { CpuInfo, CpuTopology, ReadCpuTopologyOptions } from './topology.js';
