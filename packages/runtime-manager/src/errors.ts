import { Reason } from '@kubelet-ts/api';
import { defineError } from '@kubelet-ts/common';

/**
 * The upstream reason each code stands for: what a container's waiting state or a sync result
 * shows. Codes are this package's; the reasons are upstream's strings (pkg/kubelet/images,
 * kuberuntime), kept separate so that a code can stay stable if a reason is renamed.
 */
const REASONS = {
  ERR_IMAGE_PULL: Reason.ErrImagePull,
  IMAGE_PULL_BACK_OFF: Reason.ImagePullBackOff,
  ERR_IMAGE_NEVER_PULL: Reason.ErrImageNeverPull,
  INVALID_IMAGE_NAME: Reason.InvalidImageName,
  IMAGE_INSPECT_ERROR: Reason.ImageInspectError,
  CRASH_LOOP_BACK_OFF: Reason.CrashLoopBackOff,
  CREATE_CONTAINER_CONFIG_ERROR: Reason.CreateContainerConfigError,
  CREATE_CONTAINER_ERROR: Reason.CreateContainerError,
  RUN_CONTAINER_ERROR: Reason.RunContainerError,
  POST_START_HOOK_ERROR: Reason.PostStartHookError,
  // Upstream kuberuntime ErrPreStopHook; not a waiting reason, so not among api's Reason constants.
  PRE_STOP_HOOK_ERROR: 'PreStopHookError',
  KILL_CONTAINER_ERROR: Reason.KillContainerError,
  CREATE_POD_SANDBOX_ERROR: Reason.CreatePodSandboxError,
  CONFIG_POD_SANDBOX_ERROR: Reason.ConfigPodSandboxError,
  KILL_POD_SANDBOX_ERROR: Reason.KillPodSandboxError,
  /** Any other failure of a runtime operation. */
  RUNTIME_ERROR: 'RuntimeError',
} as const;

/** Stable error codes of @kubelet-ts/runtime-manager. */
export type RuntimeManagerErrorCode = keyof typeof REASONS;

const CODES_BY_REASON: ReadonlyMap<string, RuntimeManagerErrorCode> = new Map(
  Object.entries(REASONS).map(([code, reason]) => [reason, code as RuntimeManagerErrorCode]),
);

/** The code of an upstream reason (`CrashLoopBackOff` → `CRASH_LOOP_BACK_OFF`); RUNTIME_ERROR for any other. */
export function codeForReason(reason: string): RuntimeManagerErrorCode {
  return CODES_BY_REASON.get(reason) ?? 'RUNTIME_ERROR';
}

/** The one error class of this package: a stable `code`, the upstream `reason` it stands for, and the `cause`. */
export class RuntimeManagerError extends defineError<RuntimeManagerErrorCode>('RuntimeManagerError', { defaultCode: 'RUNTIME_ERROR' }) {
  /** The upstream reason (`ErrImagePull`, `CrashLoopBackOff`…) that sync results and container statuses show. */
  readonly reason: string;

  constructor(code: RuntimeManagerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.reason = REASONS[code];
  }
}
