// Shared helpers of the cri-client integration tests (real containerd from scripts/test-runtime.sh).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createCriClient, ignoreNotFound } from '../../src/index.js';
import type { CriClient, PodSandboxConfig } from '../../src/index.js';

/** A variable of the runtime test environment; the jest global setup has loaded the env file. */
export function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
}

/** Collects teardown steps and runs them in reverse order, never stopping at a failing one. */
export class Cleanup {
  readonly #steps: (() => Promise<unknown> | unknown)[] = [];

  add(step: () => Promise<unknown> | unknown): void {
    this.#steps.push(step);
  }

  async run(): Promise<void> {
    const errors: unknown[] = [];
    while (this.#steps.length > 0) {
      const step = this.#steps.pop();
      try {
        await step?.();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'cleanup failed');
  }
}

export interface TestPod {
  uid: string;
  name: string;
  config: PodSandboxConfig;
  cgroupParent: string;
  logDirectory: string;
}

/** A unique pod config: own UID, log directory under KUBELET_TS_POD_LOGS_DIR, cgroup parent under KUBELET_TS_CGROUP_ROOT. */
export function testPod(prefix: string, options: { hostNetwork?: boolean; labels?: Record<string, string> } = {}): TestPod {
  const uid = randomUUID();
  const name = `${prefix}-${uid.slice(0, 8)}`;
  const logDirectory = path.join(env('KUBELET_TS_POD_LOGS_DIR'), `kts-test_${name}_${uid}`);
  const cgroupParent = `${env('KUBELET_TS_CGROUP_ROOT')}/pod${uid}`;
  const config: PodSandboxConfig = {
    metadata: { name, uid, namespace: 'kts-test', attempt: 0 },
    hostname: options.hostNetwork === true ? '' : name,
    logDirectory,
    labels: { 'io.kubernetes.pod.uid': uid, 'kubelet-ts.test/suite': 'cri-client', ...options.labels },
    annotations: { 'kubelet-ts.test/owner': 'cri-client-integration' },
    linux: {
      cgroupParent,
      securityContext: { namespaceOptions: { network: options.hostNetwork === true ? 'NODE' : 'POD', pid: 'CONTAINER', ipc: 'POD' } },
    },
  };
  return { uid, name, config, cgroupParent, logDirectory };
}

/** Runs a sandbox and registers its removal (and its log dir and pod cgroups) with the cleanup. */
export async function runSandbox(client: CriClient, pod: TestPod, cleanup: Cleanup): Promise<string> {
  fs.mkdirSync(pod.logDirectory, { recursive: true });
  cleanup.add(() => fs.rmSync(pod.logDirectory, { recursive: true, force: true }));
  cleanup.add(() => removePodCgroups(pod.cgroupParent));
  const { podSandboxId } = await client.runtime.runPodSandbox({ config: pod.config });
  cleanup.add(async () => {
    await client.runtime.stopPodSandbox({ podSandboxId }, { ignoreNotFound: true });
    await client.runtime.removePodSandbox({ podSandboxId }, { ignoreNotFound: true });
  });
  return podSandboxId;
}

/** Removes the pod's cgroup directories that runc leaves behind (the container cgroups are gone by then). */
export function removePodCgroups(cgroupParent: string): void {
  for (const controller of fs.readdirSync('/sys/fs/cgroup')) {
    const dir = path.join('/sys/fs/cgroup', controller, cgroupParent);
    if (!fs.existsSync(dir)) continue;
    for (const child of fs.readdirSync(dir, { withFileTypes: true })) {
      if (child.isDirectory()) fs.rmdirSync(path.join(dir, child.name));
    }
    fs.rmdirSync(dir);
  }
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError === undefined ? '' : `: ${String(lastError)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export { ignoreNotFound };
