// Helpers of the pod-lifecycle integration tests: real containerd from scripts/test-runtime.sh.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createBackoff, systemClock } from '@kubelet-ts/common';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import { createRuntimeManager } from '@kubelet-ts/runtime-manager';
import type { ContainerRuntime } from '@kubelet-ts/container-runtime';
import { createVolumeManager } from '@kubelet-ts/volume-manager';
import { createRuntimeHelper } from '../../src/index.js';
import { createPodLifecycleForTest } from '../../src/testing/index.js';
import type { ComposedPodLifecycle } from '../../src/testing/index.js';
import type { PodLifecycle } from '../../src/index.js';
import { podCgroupParent, runtimeEnv as env, testPod as suiteTestPod, useRuntimeSuite, waitFor } from '@kubelet-ts/test-support';

export { env, useRuntimeSuite, waitFor };

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
}

export const NODE_IPS = ['127.0.0.1'];

export interface Kubelet {
  lifecycle: PodLifecycle;
  podWorkers: ComposedPodLifecycle['podWorkers'];
  runtime: ContainerRuntime;
  stop(): Promise<void>;
}

function containerLogsDir(rootDir: string): string {
  const dir = path.join(rootDir, 'container-logs');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The pieces apps/kubelet wires, on a temporary root dir, with a short crash-loop back-off. */
export function startKubelet(client: CriClient, rootDir: string): Kubelet {
  const volumes = createVolumeManager({ rootDir });
  const getNodeIPs = (): string[] => NODE_IPS;
  const helper = createRuntimeHelper({
    rootDir,
    nodeName: 'it-node',
    getNodeIPs,
    volumes,
    resolvConf: '',
    getPodCgroupParent: (pod) => podCgroupParent(pod.metadata.uid),
  });
  const runtime = createRuntimeManager({
    runtimeService: client.runtime,
    imageService: client.image,
    helper,
    podLogsDir: env('KUBELET_TS_POD_LOGS_DIR'),
    // The container log symlinks stay in the temp root dir, never the machine's /var/log/containers.
    containerLogsDir: containerLogsDir(rootDir),
    clock: systemClock,
  });
  const { lifecycle, podWorkers } = createPodLifecycleForTest({
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
    podWorkers,
    runtime,
    async stop() {
      controller.abort();
      await running;
    },
  };
}

/** A unique pod of this suite in the kts-test namespace (removed by the suite once tracked). */
export function testPod(prefix: string, spec: Partial<Pod['spec']>): Pod {
  return suiteTestPod(prefix, { suite: 'pod-lifecycle', terminationGracePeriodSeconds: 2 }, spec);
}
