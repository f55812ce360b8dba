export { createSummaryProvider, ephemeralStorage, DEFAULT_HOUSEKEEPING_INTERVAL_MS, DEFAULT_POD_LOGS_DIR } from './summary-provider.js';
export type { CgroupUsage, SummaryProviderOptions } from './summary-provider.js';
export { cpuAndMemorySummary } from './cpu-and-memory.js';
export { createVolumeStatsSource, DEFAULT_VOLUME_STATS_AGG_PERIOD_MS, MEASURED_VOLUME_PLUGINS } from './volume-stats.js';
export type { MountedVolumeRef, VolumeStatsSourceOptions } from './volume-stats.js';
export { createHostFs, diskUsage, isNotFound } from './host.js';
export type { DiskUsage, HostDirEntry, HostFileStat, HostFs, StatfsInfo } from './host.js';
export {
  DEFAULT_NETWORK_INTERFACE,
  detectCgroupMode,
  fsStatsFromStatfs,
  readBootTimeMs,
  readMemoryCapacity,
  readNetworkStats,
  readNodeCpuNs,
  readRlimit,
  readRootMemory,
} from './node-stats.js';
export type { CgroupMode, NodeStatsPaths, RootMemory } from './node-stats.js';
export { StatsError } from './errors.js';
export type { StatsErrorCode } from './errors.js';
export type {
  CPUStats,
  ContainerStats,
  FsStats,
  InterfaceStats,
  MemoryStats,
  NetworkStats,
  NodeStats,
  PVCReference,
  PodReference,
  PodStats,
  ProcessStats,
  RlimitStats,
  RuntimeStats,
  Summary,
  SummaryOptions,
  SummaryProvider,
  VolumeStats,
} from './types.js';
