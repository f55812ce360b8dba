export { PodLifecycleError } from './errors.js';
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
export { createReasonCache } from './reason-cache.js';
export type { ContainerStartFailure, ReasonCache } from './reason-cache.js';
export { generatePodStatus, getPodPhase, alwaysReady, alwaysStarted, pastActiveDeadline, DEADLINE_EXCEEDED } from './status/generate.js';
export type { ContainerRef, GeneratePodStatusInput, ReadinessProvider, StartupProvider } from './status/generate.js';
export { generatePodReadyToStartContainersCondition } from './status/ready-to-start.js';
export { createGenericPleg, GENERIC_PLEG_RELIST_DURATION } from './pleg.js';
export type {
  GenericPleg,
  GenericPlegOptions,
  PodLifecycleEvent,
  PodLifecycleEventGenerator,
  PodLifecycleEventType,
  RelistDuration,
} from './pleg.js';
export { createEventedPleg, EVENTED_PLEG_MAX_STREAM_RETRIES, EVENTED_PLEG_RELIST_DURATION } from './evented-pleg.js';
export type { ContainerEventSource, ContainerEventType, EventedPleg, EventedPlegOptions, RuntimeContainerEvent } from './evented-pleg.js';
export type { HealthChecker, HealthCheckResult } from './health.js';
export { createPodStartupLatencyTracker } from './pod-startup-latency.js';
export type { PodStartupLatencyTracker, PodStartupLatencyTrackerOptions } from './pod-startup-latency.js';
export { createPodLifecycle, DEFAULT_GC_POLICY } from './lifecycle.js';
export type { PodLifecycle, PodLifecycleOptions } from './lifecycle.js';
export type {
  EvictPodRequest,
  KillPodCondition,
  PodAdmitHandler,
  PodObjectRegistry,
  PodAdmitResult,
  PodCgroupsHook,
  PodOperation,
  PodUpdate,
  ProbeResultUpdate,
  VolumeProvider,
} from './types.js';
export { toHealthChecker } from './health.js';
export { createMirrorPodManager } from './mirror-pods.js';
export type { MirrorPodApi, MirrorPodManager, MirrorPodManagerOptions, MirrorPodNode, NewMirrorPod } from './mirror-pods.js';
export { createRuntimeHelper, podHostnameAndDomain } from './runtime-helper.js';
export type { ConfigMapSecretSource, RuntimeHelperDeps, ServiceLister } from './runtime-helper.js';
