export { createStatusManager, noopStatusSink } from './status-manager.js';
export type {
  PodStatusListener,
  SetPodStatusOptions,
  StatusListenerOptions,
  StatusManager,
  StatusManagerOptions,
  StatusSink,
  VersionedPodStatus,
} from './types.js';
export {
  ConditionReason,
  KUBELET_CONDITION_TYPES,
  generateContainersReadyCondition,
  generatePodInitializedCondition,
  generatePodReadyCondition,
  hasAnyRegularContainerStarted,
  readinessGateMessages,
  terminalReadyCondition,
  updateLastTransitionTimes,
} from './conditions.js';
export { createApiStatusSink, STATUS_SYNC_PERIOD_MS } from './api-status-sink.js';
export type { ApiStatusSink, ApiStatusSinkOptions, MirrorPodTranslator, PodLister, PodStatusApi } from './api-types.js';
export { mergePodStatus } from './merge-pod-status.js';
export type { MergePodStatusOptions } from './merge-pod-status.js';
export { StatusManagerError } from './errors.js';
export type { StatusManagerErrorCode } from './errors.js';
