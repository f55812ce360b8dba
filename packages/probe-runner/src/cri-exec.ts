import type { RuntimeService } from '@kubelet-ts/cri-client';
import { isDeadlineExceeded } from '@kubelet-ts/cri-client';
import { ProbeError, execTimeoutError } from './errors.js';
import type { ExecFn } from './types.js';

export interface CriExecOptions {
  /** Added to the gRPC deadline beyond the command's timeout, so that the runtime answers first. Default 1000 ms. */
  deadlineGraceMs?: number;
}

/**
 * An ExecFn over CRI ExecSync (what the kubelet wires): the runtime kills the command after
 * `timeoutSeconds`; DEADLINE_EXCEEDED becomes the upstream exec timeout (a failed probe).
 */
export function createCriExecFn(runtime: Pick<RuntimeService, 'execSync'>, options: CriExecOptions = {}): ExecFn {
  const graceMs = options.deadlineGraceMs ?? 1_000;
  return async (containerId, cmd, timeoutSeconds, signal) => {
    try {
      const r = await runtime.execSync(
        { containerId, cmd, timeout: timeoutSeconds },
        { timeoutMs: timeoutSeconds * 1000 + graceMs, signal },
      );
      return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr };
    } catch (err) {
      // Upstream remote runtime: DeadlineExceeded is a timed-out probe.
      if (isDeadlineExceeded(err)) throw execTimeoutError(cmd, err);
      throw ProbeError.from(err, 'EXEC_FAILED');
    }
  };
}
