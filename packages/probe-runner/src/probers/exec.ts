import { ProbeError } from '../errors.js';
import type { ExecFn, ProbeOutcome } from '../types.js';

function text(data: string | Uint8Array): string {
  return typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
}

/**
 * Upstream execProber with ExecProbeTimeout on: exit code 0 succeeds, another exit code fails with
 * the command's output (stdout then stderr), a timeout fails with `command "…" timed out`; any
 * other error is thrown (the worker retries, then throws the result away).
 */
export async function doExecProbe(
  exec: ExecFn,
  containerId: string,
  cmd: string[],
  timeoutSeconds: number,
  signal: AbortSignal,
): Promise<ProbeOutcome> {
  try {
    const r = await exec(containerId, cmd, timeoutSeconds, signal);
    const output = text(r.stdout) + text(r.stderr);
    return { result: r.exitCode === 0 ? 'success' : 'failure', output };
  } catch (err) {
    if (ProbeError.is(err, 'EXEC_TIMEOUT')) return { result: 'failure', output: err.message };
    throw err;
  }
}
