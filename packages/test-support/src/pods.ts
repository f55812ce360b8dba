// Pods and sandboxes of the integration tests on the shared runtime: unique, labelled with their
// suite, and removed with everything they leave behind (CRI objects, log directories, cgroups).
// Structural types: this package depends on no other, so that every package's tests can use it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cleanup } from './runtime.js';
import { runtimeEnv } from './runtime.js';

/** The namespace of every pod and sandbox the integration tests make. */
export const TEST_NAMESPACE = 'kts-test';
/** The label with the suite that made a pod or sandbox. */
export const SUITE_LABEL = 'kubelet-ts.test/suite';

/** A fresh temporary directory (`<tmpdir>/<prefix>XXXXXX`); the caller removes it. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Where the kubelet writes a pod's container logs: `<KUBELET_TS_POD_LOGS_DIR>/<namespace>_<name>_<uid>`. */
export function podLogDirectory(pod: TestPodRef): string {
  return path.join(runtimeEnv('KUBELET_TS_POD_LOGS_DIR'), `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
}

/** A pod's cgroup parent under the test cgroup root (`<KUBELET_TS_CGROUP_ROOT>/pod<uid>`). */
export function podCgroupParent(uid: string): string {
  return `${runtimeEnv('KUBELET_TS_CGROUP_ROOT')}/pod${uid}`;
}

/** Removes a pod cgroup directory (and its leftover children) in every v1 hierarchy and in the unified one. */
export function removeCgroupTree(cgroupParent: string, cgroupFsRoot = '/sys/fs/cgroup'): void {
  for (const controller of fs.readdirSync(cgroupFsRoot)) {
    const dir = path.join(cgroupFsRoot, controller, cgroupParent);
    if (!fs.existsSync(dir)) continue;
    for (const child of fs.readdirSync(dir, { withFileTypes: true })) {
      if (child.isDirectory()) fs.rmdirSync(path.join(dir, child.name));
    }
    fs.rmdirSync(dir);
  }
}

/** The CRI calls `removeRuntimePod` needs; structurally a cri-client RuntimeService. */
export interface PodRemovalRuntime {
  listContainers(request: { filter: { labelSelector: Record<string, string> } }): Promise<{ containers: Array<{ id: string }> }>;
  removeContainer(request: { containerId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
  listPodSandbox(request: { filter: { labelSelector: Record<string, string> } }): Promise<{ items: Array<{ id: string }> }>;
  stopPodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
  removePodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
}

/** Stops and removes through CRI every container and sandbox labelled with the pod UID. */
export async function removeRuntimePod(runtime: PodRemovalRuntime, uid: string): Promise<void> {
  const filter = { labelSelector: { 'io.kubernetes.pod.uid': uid } };
  const { containers } = await runtime.listContainers({ filter });
  for (const c of containers) await runtime.removeContainer({ containerId: c.id }, { ignoreNotFound: true });
  const { items } = await runtime.listPodSandbox({ filter });
  for (const s of items) {
    await runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
    await runtime.removePodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
  }
}

/** A pod as far as the helpers read it: structurally the metadata of a @kubelet-ts/api Pod. */
export interface TestPodRef {
  metadata: { name: string; namespace: string; uid: string };
}

/**
 * A unique v1 pod in the test namespace, labelled with `suite`, with no containers and a short grace
 * period unless `spec` says otherwise; structurally a @kubelet-ts/api Pod.
 */
export function testPod<Spec extends object>(
  prefix: string,
  options: { suite: string; terminationGracePeriodSeconds: number },
  spec: Spec,
) {
  const uid = randomUUID();
  return {
    metadata: { name: `${prefix}-${uid.slice(0, 8)}`, namespace: TEST_NAMESPACE, uid, labels: { [SUITE_LABEL]: options.suite } },
    spec: { containers: [] as never[], terminationGracePeriodSeconds: options.terminationGracePeriodSeconds, ...spec },
  };
}

/** Stops and removes every sandbox and container of the pod through CRI, then its logs and cgroups. */
export async function removeTestPod(runtime: PodRemovalRuntime, pod: TestPodRef): Promise<void> {
  await removeRuntimePod(runtime, pod.metadata.uid);
  fs.rmSync(podLogDirectory(pod), { recursive: true, force: true });
  removeCgroupTree(podCgroupParent(pod.metadata.uid));
}

/** A CRI PodSandboxConfig as the tests make it (structurally cri-client's). */
export interface TestSandboxConfig {
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  hostname: string;
  logDirectory: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  linux: {
    cgroupParent: string;
    securityContext: { namespaceOptions: { network: 'POD' | 'NODE'; pid: 'CONTAINER'; ipc: 'POD' } };
  };
}

export interface TestSandbox {
  uid: string;
  name: string;
  config: TestSandboxConfig;
  cgroupParent: string;
  logDirectory: string;
}

export interface TestSandboxOptions {
  /** The suite that makes it (its `kubelet-ts.test/suite` label). */
  suite: string;
  /** The node's network (no hostname); the sandbox's own network namespace by default. */
  hostNetwork?: boolean;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/**
 * A unique sandbox config: its own UID (labelled, as the kubelet does, so that removeRuntimePod finds
 * it), a log directory under KUBELET_TS_POD_LOGS_DIR and a cgroup parent under KUBELET_TS_CGROUP_ROOT.
 */
export function testSandbox(prefix: string, options: TestSandboxOptions): TestSandbox {
  const uid = randomUUID();
  const name = `${prefix}-${uid.slice(0, 8)}`;
  const logDirectory = podLogDirectory({ metadata: { name, namespace: TEST_NAMESPACE, uid } });
  const cgroupParent = podCgroupParent(uid);
  const hostNetwork = options.hostNetwork === true;
  const config: TestSandboxConfig = {
    metadata: { name, uid, namespace: TEST_NAMESPACE, attempt: 0 },
    hostname: hostNetwork ? '' : name,
    logDirectory,
    labels: { 'io.kubernetes.pod.uid': uid, [SUITE_LABEL]: options.suite, ...options.labels },
    ...(options.annotations !== undefined ? { annotations: options.annotations } : {}),
    linux: { cgroupParent, securityContext: { namespaceOptions: { network: hostNetwork ? 'NODE' : 'POD', pid: 'CONTAINER', ipc: 'POD' } } },
  };
  return { uid, name, config, cgroupParent, logDirectory };
}

/** The CRI calls `runTestSandbox` needs; structurally a cri-client RuntimeService. */
export interface SandboxRuntime {
  runPodSandbox(request: { config: TestSandboxConfig }): Promise<{ podSandboxId: string }>;
  stopPodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
  removePodSandbox(request: { podSandboxId: string }, options: { ignoreNotFound: true }): Promise<unknown>;
}

/** Runs the sandbox and registers its removal (and of its log directory and pod cgroups) with `cleanup`. */
export async function runTestSandbox(runtime: SandboxRuntime, sandbox: TestSandbox, cleanup: Cleanup): Promise<string> {
  fs.mkdirSync(sandbox.logDirectory, { recursive: true });
  cleanup.add(() => fs.rmSync(sandbox.logDirectory, { recursive: true, force: true }));
  cleanup.add(() => removeCgroupTree(sandbox.cgroupParent));
  const { podSandboxId } = await runtime.runPodSandbox({ config: sandbox.config });
  cleanup.add(async () => {
    await runtime.stopPodSandbox({ podSandboxId }, { ignoreNotFound: true });
    await runtime.removePodSandbox({ podSandboxId }, { ignoreNotFound: true });
  });
  return podSandboxId;
}
