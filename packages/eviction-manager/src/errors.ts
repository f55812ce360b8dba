export type EvictionErrorCode =
  /** An eviction threshold, grace period or minimum reclaim in the options is not valid. */
  | 'INVALID_CONFIG'
  /** The summary (stats) could not be read; no decision was taken this cycle. */
  | 'STATS_UNAVAILABLE'
  /** Killing a pod for eviction failed. */
  | 'KILL_FAILED';

/** The one error class of @kubelet-ts/eviction-manager. */
export class EvictionError extends Error {
  override readonly name = 'EvictionError';
  readonly code: EvictionErrorCode;

  constructor(code: EvictionErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps anything thrown into an EvictionError with `code`, keeping EvictionErrors as they are. */
  static from(err: unknown, code: EvictionErrorCode, message: string): EvictionError {
    if (isEvictionError(err)) return err;
    return new EvictionError(code, message, { cause: err });
  }
}

export function isEvictionError(err: unknown): err is EvictionError {
  return err instanceof EvictionError || (err instanceof Error && err.name === 'EvictionError' && typeof (err as { code?: unknown }).code === 'string');
}
