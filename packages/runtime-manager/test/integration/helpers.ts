// Shared helpers of the runtime-manager integration tests (real containerd from scripts/test-runtime.sh).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { createCriClient } from '@kubelet-ts/cri-client';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { RunContainerOptions, RuntimeHelper } from '@kubelet-ts/container-runtime';
import { removeCgroupTree, removeRuntimePod, runtimeEnv as env, waitFor } from '@kubelet-ts/test-support';

export { env, waitFor };

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
  await removeRuntimePod(client.runtime, pod.metadata.uid);
  fs.rmSync(path.join(env('KUBELET_TS_POD_LOGS_DIR'), `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`), {
    recursive: true,
    force: true,
  });
  removeCgroupTree(`${env('KUBELET_TS_CGROUP_ROOT')}/pod${pod.metadata.uid}`);
}

