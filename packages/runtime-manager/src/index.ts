export { RuntimeManagerError } from './errors.js';
export type { RuntimeManagerErrorCode } from './errors.js';
export {
  decodeContainerAnnotations,
  decodeContainerLabels,
  decodeSandboxLabels,
  newContainerAnnotations,
  newContainerLabels,
  newPodAnnotations,
  newPodLabels,
} from './labels.js';
export type { ContainerAnnotationInfo, ContainerLabelInfo, SandboxLabelInfo } from './labels.js';
export { ContainerKillReason, computePodActions, podSandboxChanged, shouldRestartOnFailure } from './compute-pod-actions.js';
export type { ComputePodActionsDeps, ContainerToKill, PodActions } from './compute-pod-actions.js';
export { IMAGE_BACKOFF_INITIAL_MS, IMAGE_BACKOFF_MAX_MS, applyDefaultImageTag, createImagePuller } from './image-puller.js';
export type { ImagePodPullingTimeRecorder, ImagePuller, ImagePullerOptions, PullCredentialsFn } from './image-puller.js';
export { criNanosToMs, generatePodStatus } from './generate-pod-status.js';
export { createRuntimeManager } from './runtime-manager.js';
export type { RuntimeManagerOptions } from './runtime-manager.js';
