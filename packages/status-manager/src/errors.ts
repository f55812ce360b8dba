import { defineError } from '@kubelet-ts/common';

export type StatusManagerErrorCode = 'ALREADY_RUNNING';

/** The error class of @kubelet-ts/status-manager, for misuse of its API. */
export class StatusManagerError extends defineError<StatusManagerErrorCode>('StatusManagerError', { defaultCode: 'ALREADY_RUNNING' }) {}
