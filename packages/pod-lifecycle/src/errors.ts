import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/pod-lifecycle. */
export type PodLifecycleErrorCode =
  /** A sync step of one pod failed; the pod worker retries it with back-off. */
  | 'SYNC_FAILED'
  /** Killing a pod failed or left containers running. */
  | 'KILL_FAILED'
  /** Building a container's environment failed (upstream CreateContainerConfigError). */
  | 'CREATE_CONTAINER_CONFIG_ERROR'
  /** A volume could not be prepared or is of a type not supported yet. */
  | 'VOLUME_ERROR'
  /** A pod directory or kubelet-managed file could not be written or removed. */
  | 'POD_DIR_ERROR'
  /** The pod's cgroup could not be created, updated or removed (see the `podCgroups` hook). */
  | 'POD_CGROUP_ERROR'
  /** A mirror pod could not be created or deleted (retried after back-off), or the mirror pod manager was run twice. */
  | 'MIRROR_POD_ERROR'
  /** The wait was aborted through its AbortSignal. */
  | 'ABORTED';

/** The one error class of this package: a stable `code`, a message, and the `cause` when there is one. */
export class PodLifecycleError extends defineError<PodLifecycleErrorCode>('PodLifecycleError', { defaultCode: 'SYNC_FAILED' }) {
  /** When the failure is a back-off with a known end: retry after this long rather than the generic error back-off. */
  readonly retryAfterMs?: number;

  constructor(code: PodLifecycleErrorCode, message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(code, message, options);
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}
