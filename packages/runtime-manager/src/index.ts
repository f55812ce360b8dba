export type {
  ContainerGCPolicy,
  ContainerMount,
  ContainerRuntime,
  PodSyncResult,
  ProbeResults,
  RunContainerOptions,
  RunningContainer,
  RunningPod,
  RunningSandbox,
  RuntimeCondition,
  RuntimeContainerState,
  RuntimeContainerStatus,
  RuntimeHelper,
  RuntimePodStatus,
  RuntimeSandboxStatus,
  SyncAction,
  SyncResult,
} from './types.js';
export { RuntimeManagerError, isRuntimeManagerError } from './errors.js';
export type { RuntimeManagerErrorCode } from './errors.js';
export { backoffKey, fnv1a32, hashContainer } from './hash.js';
export {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_PORTS_ANNOTATION,
  CONTAINER_PRE_STOP_HANDLER_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_PATH_ANNOTATION,
  CONTAINER_TERMINATION_MESSAGE_POLICY_ANNOTATION,
  CONTAINER_TYPE_ANNOTATION,
  ContainerType,
  KUBERNETES_CONTAINER_NAME_LABEL,
  KUBERNETES_POD_NAME_LABEL,
  KUBERNETES_POD_NAMESPACE_LABEL,
  KUBERNETES_POD_UID_LABEL,
  POD_DELETION_GRACE_PERIOD_ANNOTATION,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  decodeContainerAnnotations,
  decodeContainerLabels,
  decodeSandboxLabels,
  newContainerAnnotations,
  newContainerLabels,
  newPodAnnotations,
  newPodLabels,
} from './labels.js';
export type { ContainerAnnotationInfo, ContainerLabelInfo, SandboxLabelInfo } from './labels.js';
export {
  ContainerKillReason,
  computePodActions,
  findContainerStatus,
  isRestartableInitContainer,
  nextRestartCount,
  podSandboxChanged,
  shouldContainerBeRestarted,
  shouldRestartOnFailure,
} from './compute-pod-actions.js';
export type { ComputePodActionsDeps, ContainerToKill, PodActions } from './compute-pod-actions.js';
export { IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS, applyDefaultImageTag, createImagePuller } from './image-puller.js';
export type { ImagePuller, ImagePullerOptions } from './image-puller.js';
export { MINIMUM_GRACE_PERIOD_SECONDS, createRuntimeManager } from './runtime-manager.js';
export type { RuntimeManagerOptions } from './runtime-manager.js';
