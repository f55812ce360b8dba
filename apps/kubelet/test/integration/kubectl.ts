// The machine's kubectl (on the PATH, as for scripts/control-plane.sh) with the control plane's admin
// kubeconfig: what the API-mode tests check the cluster with, as an operator would.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import type { ControlPlaneEnv } from '@kubelet-ts/test-support';

const run = promisify(execFile);

export interface Kubectl {
  (...args: string[]): Promise<string>;
  /** `-o json` of the arguments, parsed. */
  json<T = unknown>(...args: string[]): Promise<T>;
  /** The object, or undefined when the API says NotFound. */
  get<T = unknown>(...args: string[]): Promise<T | undefined>;
  /** Applies a manifest (an object or a list of them) from stdin. */
  apply(manifest: unknown): Promise<string>;
  /** Runs with `input` on stdin and resolves with the exit code and both outputs, whatever the code. */
  run(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts a long-running command (`port-forward`, `attach`); the caller kills it. */
  spawn(args: string[]): ChildProcess;
  /** The arguments that select this control plane (for wrapping kubectl in another command). */
  readonly baseArgs: readonly string[];
}

export function kubectlFor(cp: ControlPlaneEnv): Kubectl {
  const bin = 'kubectl';
  const base = ['--kubeconfig', cp.kubeconfig, '--request-timeout=20s'];
  const kubectl = (async (...args: string[]) => {
    try {
      return (await run(bin, [...base, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })).stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`kubectl ${args.join(' ')}: ${(e.stderr ?? e.message).trim()}`);
    }
  }) as Kubectl;
  kubectl.json = async <T>(...args: string[]) => JSON.parse(await kubectl(...args, '-o', 'json')) as T;
  kubectl.get = async <T>(...args: string[]) => {
    try {
      return await kubectl.json<T>('get', ...args);
    } catch (err) {
      if (/NotFound|not found/.test((err as Error).message)) return undefined;
      throw err;
    }
  };
  kubectl.apply = (manifest) =>
    new Promise<string>((resolve, reject) => {
      const child = execFile(bin, [...base, 'apply', '-f', '-'], { encoding: 'utf8' }, (err, stdout, stderr) =>
        err ? reject(new Error(`kubectl apply: ${stderr.trim() || err.message}`)) : resolve(stdout),
      );
      child.stdin?.end(JSON.stringify(manifest));
    });
  kubectl.run = (args, input) =>
    new Promise((resolve) => {
      const child = execFile(bin, [...base, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1;
        resolve({ code, stdout, stderr });
      });
      child.stdin?.end(input ?? '');
    });
  kubectl.spawn = (args) => spawn(bin, [...base, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  Object.defineProperty(kubectl, 'baseArgs', { value: base });
  return kubectl;
}

/** A condition's status of an object's `status.conditions`. */
export function conditionOf(
  obj: { status?: { conditions?: Array<{ type: string; status: string }> } } | undefined,
  type: string,
): string | undefined {
  return obj?.status?.conditions?.find((c) => c.type === type)?.status;
}
