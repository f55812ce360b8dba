import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/pod-lifecycle. */
export type PodLifecycleErrorCode =
  /** A sync step of one pod failed; the pod worker retries it with back-off. */
  | 'SyncFailed'
  /** Killing a pod failed or left containers running. */
  | 'KillFailed'
  /** Building a container's environment failed (upstream CreateContainerConfigError). */
  | 'CreateContainerConfigError'
  /** A volume could not be prepared or is of a type not supported yet. */
  | 'VolumeError'
  /** A pod directory or kubelet-managed file could not be written or removed. */
  | 'PodDirError'
  /** The pod's cgroup could not be created, updated or removed (see the `podCgroups` hook). */
  | 'PodCgroupError'
  /** The wait was aborted through its AbortSignal. */
  | 'Aborted';

/** The one error class of this package: a stable `code`, a message, and the `cause` when there is one. */
export class PodLifecycleError extends defineError<PodLifecycleErrorCode>('PodLifecycleError', { defaultCode: 'SyncFailed' }) {
  /** When the failure is a back-off with a known end: retry after this long rather than the generic error back-off. */
  readonly retryAfterMs?: number;

  constructor(code: PodLifecycleErrorCode, message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(code, message, options);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** True when `err` is a PodLifecycleError (with the given code, when one is given): `PodLifecycleError.is`. */
export function isPodLifecycleError(err: unknown, code?: PodLifecycleErrorCode): err is PodLifecycleError {
  return PodLifecycleError.is(err, code);
}
