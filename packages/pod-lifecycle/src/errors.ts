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
export class PodLifecycleError extends Error {
  override readonly name = 'PodLifecycleError';
  readonly code: PodLifecycleErrorCode;
  /** When the failure is a back-off with a known end: retry after this long rather than the generic error back-off. */
  readonly retryAfterMs?: number;

  constructor(code: PodLifecycleErrorCode, message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /** Wraps any thrown value, keeping a PodLifecycleError as is. */
  static from(err: unknown, code: PodLifecycleErrorCode = 'SyncFailed'): PodLifecycleError {
    if (err instanceof PodLifecycleError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new PodLifecycleError(code, message, { cause: err });
  }
}

/** True when `err` is a PodLifecycleError (with the given code, when one is given). */
export function isPodLifecycleError(err: unknown, code?: PodLifecycleErrorCode): err is PodLifecycleError {
  return err instanceof PodLifecycleError && (code === undefined || err.code === code);
}
