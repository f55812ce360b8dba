// Shared helpers of the cri-client integration tests (real containerd from scripts/test-runtime.sh).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Cleanup, removeCgroupTree, runtimeEnv as env, waitFor } from '@kubelet-ts/test-support';
import { createCriClient, ignoreNotFound } from '../../src/index.js';
import type { CriClient, PodSandboxConfig } from '../../src/index.js';

export { Cleanup, env, waitFor };

export function newClient(): CriClient {
  return createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') });
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
  cleanup.add(() => removeCgroupTree(pod.cgroupParent));
  const { podSandboxId } = await client.runtime.runPodSandbox({ config: pod.config });
  cleanup.add(async () => {
    await client.runtime.stopPodSandbox({ podSandboxId }, { ignoreNotFound: true });
    await client.runtime.removePodSandbox({ podSandboxId }, { ignoreNotFound: true });
  });
  return podSandboxId;
}

export { ignoreNotFound };
