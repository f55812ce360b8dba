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
  updateLastTransitionTimes,
} from './conditions.js';
export { rfc3339 } from './time.js';
