import { formatIssue } from '@kubelet-ts/api';
import { defineError } from '@kubelet-ts/common';
import type { SourceError } from './types.js';

export type PodSourceErrorCode = 'INVALID_OPTIONS' | 'DUPLICATE_SOURCE' | 'CLOSED';

/** The error class of @kubelet-ts/pod-sources, for misuse of the API (bad input is reported as {@link SourceError}). */
export class PodSourceError extends defineError<PodSourceErrorCode>('PodSourceError', { defaultCode: 'INVALID_OPTIONS' }) {}

/** `<file>: <path>: <reason>`. */
export function formatSourceError(error: SourceError): string {
  return formatIssue({ source: error.file, path: error.path, reason: error.reason });
}
