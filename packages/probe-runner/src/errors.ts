import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/probe-runner. */
export type ProbeErrorCode =
  /** The probe spec cannot be run (no handler, a port that does not resolve). */
  | 'INVALID_PROBE'
  /** An exec probe's command did not finish within timeoutSeconds (upstream exec TimeoutError). */
  | 'EXEC_TIMEOUT'
  /** The exec function failed for another reason (the runtime answered an error). */
  | 'EXEC_FAILED';

/** The one error class of this package: a stable `code` and the `cause`. */
export class ProbeError extends defineError<ProbeErrorCode>('ProbeError', { defaultCode: 'EXEC_FAILED' }) {}

/** The upstream timeout error of an exec probe: its message is the probe's output (`command "…" timed out`). */
export function execTimeoutError(cmd: readonly string[], cause?: unknown): ProbeError {
  return new ProbeError('EXEC_TIMEOUT', `command ${JSON.stringify(cmd.join(' '))} timed out`, cause === undefined ? undefined : { cause });
}
