import { execTimeoutError } from '../errors.js';
import type { ExecFn, ExecResult } from '../types.js';

export interface FakeExecCall {
  containerId: string;
  cmd: string[];
  timeoutSeconds: number;
}

/** What a scripted command does: a result, 'timeout' (the upstream exec timeout), or an Error to throw. */
export type FakeExecOutcome = ExecResult | 'timeout' | Error;

/**
 * A scripted ExecFn: records every call; answers with the handler's outcome (default: exit 0).
 * Use `exec` as the probe manager's `exec` option.
 */
export class FakeExec {
  readonly calls: FakeExecCall[] = [];
  #handler: (containerId: string, cmd: string[]) => FakeExecOutcome | Promise<FakeExecOutcome> = () => ({
    exitCode: 0,
    stdout: '',
    stderr: '',
  });

  /** Sets how commands answer. */
  setHandler(handler: (containerId: string, cmd: string[]) => FakeExecOutcome | Promise<FakeExecOutcome>): void {
    this.#handler = handler;
  }

  readonly exec: ExecFn = async (containerId, cmd, timeoutSeconds) => {
    this.calls.push({ containerId, cmd: [...cmd], timeoutSeconds });
    const outcome = await this.#handler(containerId, cmd);
    if (outcome === 'timeout') throw execTimeoutError(cmd);
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
}
