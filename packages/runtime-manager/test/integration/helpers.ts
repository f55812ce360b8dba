// Shared helpers of the runtime-manager integration tests (real containerd from scripts/test-runtime.sh).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { RunContainerOptions, RuntimeHelper } from '../../src/index.js';

/** A variable of the runtime test environment; the jest global setup has loaded the env file. */
export function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
}

/**
 * A small RuntimeHelper for tests: env from the spec's plain values, hostPath volumes mounted as
 * they are and emptyDir volumes as directories under the pod directory, cgroups under the test root.
 */
export class TestRuntimeHelper implements RuntimeHelper {
  constructor(readonly rootDir: string) {}

  async generateRunContainerOptions(pod: Pod, container: Container): Promise<RunContainerOptions> {
    const mounts: RunContainerOptions['mounts'] = [];
    for (const vm of container.volumeMounts ?? []) {
      const volume = (pod.spec.volumes ?? []).find((v) => v.name === vm.name);
      if (volume?.hostPath !== undefined) {
        mounts.push({ containerPath: vm.mountPath, hostPath: volume.hostPath.path, readOnly: vm.readOnly === true });
      } else if (volume?.emptyDir !== undefined) {
        const dir = path.join(this.getPodDir(pod.metadata.uid), 'volumes', 'empty-dir', vm.name);
        fs.mkdirSync(dir, { recursive: true });
        mounts.push({ containerPath: vm.mountPath, hostPath: dir, readOnly: vm.readOnly === true });
      } else {
        throw new Error(`volume ${vm.name} is not supported by the test helper`);
      }
    }
    return {
      env: (container.env ?? []).filter((e) => e.value !== undefined).map((e) => ({ name: e.name, value: e.value ?? '' })),
      mounts,
      hostname: pod.spec.hostname ?? pod.metadata.name,
    };
  }

  getPodCgroupParent(pod: Pod): string {
    return `${env('KUBELET_TS_CGROUP_ROOT')}/pod${pod.metadata.uid}`;
  }

  async getPodDNS(): Promise<{ servers: string[]; searches: string[]; options: string[] }> {
    return { servers: [], searches: [], options: [] };
  }

  getPodDir(uid: string): string {
    return path.join(this.rootDir, 'pods', uid);
  }
}

/** A unique pod in the kts-test namespace. */
export function testPod(prefix: string, spec: Partial<Pod['spec']>): Pod {
  const uid = randomUUID();
  return {
    metadata: { name: `${prefix}-${uid.slice(0, 8)}`, namespace: 'kts-test', uid, labels: { 'kubelet-ts.test/suite': 'runtime-manager' } },
    spec: { containers: [], terminationGracePeriodSeconds: 5, ...spec },
  };
}

export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kts-rm-it-'));
}

/** Stops and removes every sandbox and container of the pod through CRI, then its logs and cgroups. */
export async function removePod(client: CriClient, pod: Pod): Promise<void> {
  const selector = { labelSelector: { 'io.kubernetes.pod.uid': pod.metadata.uid } };
  const { containers } = await client.runtime.listContainers({ filter: selector });
  for (const c of containers) await client.runtime.removeContainer({ containerId: c.id }, { ignoreNotFound: true });
  const { items } = await client.runtime.listPodSandbox({ filter: selector });
  for (const s of items) {
    await client.runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
    await client.runtime.removePodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
  }
  fs.rmSync(path.join(env('KUBELET_TS_POD_LOGS_DIR'), `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`), {
    recursive: true,
    force: true,
  });
  const parent = `${env('KUBELET_TS_CGROUP_ROOT')}/pod${pod.metadata.uid}`;
  for (const controller of fs.readdirSync('/sys/fs/cgroup')) {
    const dir = path.join('/sys/fs/cgroup', controller, parent);
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
