import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/api. */
export type ApiErrorCode = 'INVALID_QUANTITY' | 'INVALID_PORT' | 'INVALID_POD' | 'INVALID_PATCH';

/** The one error class of this package: a stable `code`, a message, and the `cause` when there is one. */
export class ApiError extends defineError<ApiErrorCode>('ApiError', { defaultCode: 'INVALID_POD' }) {}
