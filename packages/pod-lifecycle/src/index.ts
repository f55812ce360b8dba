export { PodLifecycleError, isPodLifecycleError } from './errors.js';
export type { PodLifecycleErrorCode } from './errors.js';
export { createPodWorkers } from './pod-workers.js';
export type {
  KnownPodWorkState,
  PodSyncer,
  PodUpdateType,
  PodWorkerInfo,
  PodWorkerState,
  PodWorkers,
  PodWorkersOptions,
  UpdatePodOptions,
} from './pod-workers.js';
export { createPodStatusCache, emptyRuntimePodStatus } from './pod-cache.js';
export type { PodCacheEntry, PodStatusCache } from './pod-cache.js';
