// Shared helpers of the runtime-manager integration tests (real containerd from scripts/test-runtime.sh).
import fs from 'node:fs';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { RunContainerOptions, RuntimeHelper } from '@kubelet-ts/container-runtime';
import {
  podCgroupParent,
  removeTestPod,
  runtimeEnv as env,
  testPod as suiteTestPod,
  useRuntimeSuite,
  waitFor,
} from '@kubelet-ts/test-support';

export { env, removeTestPod, useRuntimeSuite, waitFor };

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
    return podCgroupParent(pod.metadata.uid);
  }

  async getPodDNS(): Promise<{ servers: string[]; searches: string[]; options: string[] }> {
    return { servers: [], searches: [], options: [] };
  }

  getPodDir(uid: string): string {
    return path.join(this.rootDir, 'pods', uid);
  }
}

/** A unique pod of this suite in the kts-test namespace (removed by the suite once tracked). */
export function testPod(prefix: string, spec: Partial<Pod['spec']>): Pod {
  return suiteTestPod(prefix, { suite: 'runtime-manager', terminationGracePeriodSeconds: 5 }, spec);
}
