// Helpers of the pod-lifecycle integration tests: real containerd from scripts/test-runtime.sh.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createBackoff, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import { createRuntimeManager } from '@kubelet-ts/runtime-manager';
import type { ContainerRuntime } from '@kubelet-ts/runtime-manager';
import { createBasicVolumeProvider, createPodLifecycle, createRuntimeHelper } from '../../src/index.js';
import type { PodLifecycle } from '../../src/index.js';

/** A variable of the runtime test environment; the jest global setup has loaded the env file. */
export function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set: start the runtime with bash scripts/test-runtime.sh up`);
  return value;
}

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
}

export const NODE_IPS = ['127.0.0.1'];

export interface Kubelet {
  lifecycle: PodLifecycle;
  runtime: ContainerRuntime;
  stop(): Promise<void>;
}

/** The pieces apps/kubelet wires, on a temporary root dir, with a short crash-loop back-off. */
export function startKubelet(client: CriClient, rootDir: string): Kubelet {
  const volumes = createBasicVolumeProvider({ rootDir });
  const getNodeIPs = (): string[] => NODE_IPS;
  const helper = createRuntimeHelper({
    rootDir,
    nodeName: 'it-node',
    getNodeIPs,
    volumes,
    resolvConf: '',
    getPodCgroupParent: (pod) => `${env('KUBELET_TS_CGROUP_ROOT')}/pod${pod.metadata.uid}`,
  });
  const runtime = createRuntimeManager({
    runtimeService: client.runtime,
    imageService: client.image,
    helper,
    podLogsDir: env('KUBELET_TS_POD_LOGS_DIR'),
    clock: systemClock,
  });
  const lifecycle = createPodLifecycle({
    runtime,
    nodeName: 'it-node',
    getNodeIPs,
    volumes,
    rootDir,
    housekeepingIntervalMs: 500,
    crashLoopBackoff: createBackoff({ initialMs: 1_000, maxMs: 2_000, clock: systemClock }),
  });
  const controller = new AbortController();
  const running = lifecycle.run(controller.signal);
  return {
    lifecycle,
    runtime,
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** A unique pod in the kts-test namespace. */
export function testPod(prefix: string, spec: Partial<Pod['spec']>): Pod {
  const uid = randomUUID();
  return {
    metadata: { name: `${prefix}-${uid.slice(0, 8)}`, namespace: 'kts-test', uid, labels: { 'kubelet-ts.test/suite': 'pod-lifecycle' } },
    spec: { containers: [], terminationGracePeriodSeconds: 2, ...spec },
  };
}

export function tempRoot(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kts-pl-it-'));
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
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
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
