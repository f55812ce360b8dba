import type { RuntimeContainerStatus, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { ContainerStatus, PodSandboxStatus } from '@kubelet-ts/cri-client';
import { nsToMs, toContainerStatus, toSandboxStatus } from './internal/pod-status.js';

/** CRI nanosecond timestamps (decimal strings) to milliseconds; missing or malformed ones are 0. */
export function criNanosToMs(ns: string | number | undefined): number {
  return nsToMs(ns);
}

/**
 * Upstream kuberuntime GeneratePodStatus: the runtime contract's pod status from the CRI statuses of one
 * sandbox and its containers (what a CRI container event carries), converted as GetPodStatus converts
 * them: labels and annotations decoded, an exited container's termination message read, newest first.
 * Undefined when the sandbox status has no metadata to name the pod by.
 */
export async function generatePodStatus(
  sandbox: PodSandboxStatus,
  containers: readonly ContainerStatus[],
  timestamp: number,
): Promise<RuntimePodStatus | undefined> {
  const metadata = sandbox.metadata;
  if (metadata === null || metadata === undefined) return undefined;
  const sandboxStatus = toSandboxStatus(sandbox);
  const converted = await Promise.all(containers.map((c) => toContainerStatus(c)));
  const statuses = converted.filter((c): c is RuntimeContainerStatus => c !== undefined).sort((a, b) => b.createdAt - a.createdAt);
  const ips = sandboxStatus.ip !== undefined ? [sandboxStatus.ip, ...sandboxStatus.additionalIps] : [];
  return {
    uid: metadata.uid,
    name: metadata.name,
    namespace: metadata.namespace,
    ips,
    sandboxes: [sandboxStatus],
    containers: statuses,
    timestamp,
  };
}
