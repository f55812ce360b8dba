import { formatIssue } from '@kubelet-ts/api';
import type { SourceError } from './types.js';

export type PodSourceErrorCode = 'InvalidOptions' | 'DuplicateSource' | 'Closed';

/** The error class of @kubelet-ts/pod-sources, for misuse of the API (bad input is reported as {@link SourceError}). */
export class PodSourceError extends Error {
  override readonly name = 'PodSourceError';
  readonly code: PodSourceErrorCode;

  constructor(code: PodSourceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

/** `<file>: <path>: <reason>`. */
export function formatSourceError(error: SourceError): string {
  return formatIssue({ source: error.file, path: error.path, reason: error.reason });
}
