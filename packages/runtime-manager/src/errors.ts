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
export class RuntimeManagerError extends Error {
  override readonly name = 'RuntimeManagerError';
  readonly code: RuntimeManagerErrorCode;

  constructor(code: RuntimeManagerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps any thrown value, keeping a RuntimeManagerError as is. */
  static from(err: unknown, code: RuntimeManagerErrorCode = 'RuntimeError'): RuntimeManagerError {
    if (err instanceof RuntimeManagerError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new RuntimeManagerError(code, message, { cause: err });
  }
}

/** True when `err` is a RuntimeManagerError (with the given code, when one is given). */
export function isRuntimeManagerError(err: unknown, code?: RuntimeManagerErrorCode): err is RuntimeManagerError {
  return err instanceof RuntimeManagerError && (code === undefined || err.code === code);
}
