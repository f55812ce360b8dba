/** Stable error codes of @kubelet-ts/api. */
export type ApiErrorCode = 'InvalidQuantity' | 'InvalidPort' | 'InvalidPod';

/** The one error class of this package: a stable `code`, a message, and the `cause` when there is one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps any thrown value, keeping an ApiError as is. */
  static from(err: unknown, code: ApiErrorCode = 'InvalidPod'): ApiError {
    if (err instanceof ApiError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new ApiError(code, message, { cause: err });
  }
}

/** True when `err` is an ApiError with the given code. */
export function isApiError(err: unknown, code?: ApiErrorCode): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}
