export { ContainerLogsError } from './errors.js';
export type { ContainerLogsErrorCode } from './errors.js';
export { PartialLineAssembler, LineSplitter, formatEpochMs } from './cri-log.js';
export type { LogEntry } from './cri-log.js';
export { COMPRESS_SUFFIX, TMP_SUFFIX, filterUnusedLogs, getAllLogs, listRotatedFiles, rotationTimestamp } from './log-files.js';
export {
  createContainerLogManager,
  DEFAULT_CONTAINER_LOG_MAX_SIZE,
  DEFAULT_CONTAINER_LOG_MAX_FILES,
  DEFAULT_CONTAINER_LOG_MAX_WORKERS,
  DEFAULT_CONTAINER_LOG_MONITOR_INTERVAL_MS,
  MIN_CONTAINER_LOG_MONITOR_INTERVAL_MS,
} from './log-manager.js';
export type { ContainerLogManager, ContainerLogManagerOptions, LogRuntime, RotationResult } from './log-manager.js';
export { newLogOptions, parsePodLogOptions, podLogOptionsFromQuery, podLogOptionsSchema } from './options.js';
export type { LogOptions, LogStreamSelection, PodLogOptions } from './options.js';
export { readLogs } from './reader.js';
export type { LogChunk, ReadLogsOptions } from './reader.js';
export { createCriContainerLocator, pipeLogs, previousLogPath, streamContainerLogs } from './container-logs.js';
export type { ContainerLocator, ContainerLogRequest, ContainerLogTarget, StreamContainerLogsOptions } from './container-logs.js';
