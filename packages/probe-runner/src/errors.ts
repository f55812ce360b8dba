/** Stable error codes of @kubelet-ts/probe-runner. */
export type ProbeErrorCode =
  /** The probe spec cannot be run (no handler, a port that does not resolve). */
  | 'InvalidProbe'
  /** An exec probe's command did not finish within timeoutSeconds (upstream exec TimeoutError). */
  | 'ExecTimeout'
  /** The exec function failed for another reason (the runtime answered an error). */
  | 'ExecFailed';

/** The one error class of this package: a stable `code` and the `cause`. */
export class ProbeError extends Error {
  override readonly name = 'ProbeError';
  readonly code: ProbeErrorCode;

  constructor(code: ProbeErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps any thrown value, keeping a ProbeError as is. */
  static from(err: unknown, code: ProbeErrorCode = 'ExecFailed'): ProbeError {
    if (err instanceof ProbeError) return err;
    return new ProbeError(code, err instanceof Error ? err.message : String(err), { cause: err });
  }
}

/** True when `err` is a ProbeError (with the given code, when one is given). */
export function isProbeError(err: unknown, code?: ProbeErrorCode): err is ProbeError {
  return err instanceof ProbeError && (code === undefined || err.code === code);
}

/** The upstream timeout error of an exec probe: its message is the probe's output (`command "…" timed out`). */
export function execTimeoutError(cmd: readonly string[], cause?: unknown): ProbeError {
  return new ProbeError('ExecTimeout', `command ${JSON.stringify(cmd.join(' '))} timed out`, cause === undefined ? undefined : { cause });
}
