import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/runtime-manager. Sync failures carry upstream reason strings as codes. */
export type RuntimeManagerErrorCode =
  | 'ErrImagePull'
  | 'ImagePullBackOff'
  | 'ErrImageNeverPull'
  | 'InvalidImageName'
  | 'ImageInspectError'
  | 'CrashLoopBackOff'
  | 'CreateContainerConfigError'
  | 'CreateContainerError'
  | 'RunContainerError'
  | 'PostStartHookError'
  | 'PreStopHookError'
  | 'KillContainerError'
  | 'CreatePodSandboxError'
  | 'ConfigPodSandboxError'
  | 'KillPodSandboxError'
  | 'RuntimeError';

/** The one error class of this package: a stable `code` (an upstream reason where there is one) and the `cause`. */
export class RuntimeManagerError extends defineError<RuntimeManagerErrorCode>('RuntimeManagerError', { defaultCode: 'RuntimeError' }) {}

/** True when `err` is a RuntimeManagerError (with the given code, when one is given): `RuntimeManagerError.is`. */
export function isRuntimeManagerError(err: unknown, code?: RuntimeManagerErrorCode): err is RuntimeManagerError {
  return RuntimeManagerError.is(err, code);
}
