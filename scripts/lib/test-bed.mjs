// What the test-bed scripts (smoke test, takeover test) share: the environments' variables, kubectl
// against the control plane, and polling with a deadline. No npm dependency.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readEnvFile } from './upstream-kubelet.mjs';

export const RUNTIME_DIR = process.env.KUBELET_TS_RUNTIME_DIR || '/run/kubelet-ts-runtime';
export const CONTROL_PLANE_DIR = process.env.KUBELET_TS_CONTROL_PLANE_DIR || '/run/kubelet-ts-control-plane';

/** The merged env files of the runtime and the control plane; a missing one says how to start it. */
export function loadTestBedEnv() {
  const env = {};
  for (const [file, hint] of [
    [path.join(RUNTIME_DIR, 'env'), 'bash scripts/test-runtime.sh up'],
    [path.join(CONTROL_PLANE_DIR, 'env'), 'bash scripts/control-plane.sh up'],
  ]) {
    if (!fs.existsSync(file)) throw new Error(`${file} is missing: start it with: ${hint}`);
    Object.assign(env, readEnvFile(file));
  }
  return env;
}

/** kubectl against the control plane: `kubectl(...args)` and `kubectl.withInput(input, ...args)`. */
export function kubectlFor(env) {
  const kubectl = (...args) =>
    execFileSync('kubectl', ['--kubeconfig', env.KUBELET_TS_KUBECONFIG, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  kubectl.withInput = (input, ...args) =>
    execFileSync('kubectl', ['--kubeconfig', env.KUBELET_TS_KUBECONFIG, ...args], { encoding: 'utf8', input });
  return kubectl;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Calls fn every 500 ms until it returns something truthy (returned) or the deadline passes (thrown, with the last error). */
export async function poll(what, timeoutMs, fn) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (${String(last.message).trim()})` : ''}`);
    await sleep(500);
  }
}
