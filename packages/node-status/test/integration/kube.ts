// The integration tests' API clients: @kubelet-ts/kube-client over the control plane's kubeconfigs
// (the admin's, and the node identity's for what the kubelet does).
import { systemClock, noopLogger } from '@kubelet-ts/common';
import { createKubeClient, loadKubeconfig } from '@kubelet-ts/kube-client';
import type { KubeClient } from '@kubelet-ts/kube-client';

export async function kubeClient(kubeconfig: string, userAgent = 'kubelet-ts-node-status-test'): Promise<KubeClient> {
  const connection = await loadKubeconfig(kubeconfig);
  return createKubeClient({
    connection,
    name: userAgent,
    userAgent,
    qps: -1,
    burst: 0,
    timeoutMs: 10_000,
    logger: noopLogger,
    clock: systemClock,
  });
}

/** The HTTP status of a failed call (0 when it did not fail). */
export async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 0;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode ?? -1;
  }
}

/** Deletes a Node (admin), ignoring a missing one, and waits until it is gone. */
export async function deleteNode(admin: KubeClient, name: string): Promise<void> {
  await statusOf(admin.delete(`/api/v1/nodes/${name}`));
  for (let i = 0; i < 100; i++) {
    if ((await statusOf(admin.get(`/api/v1/nodes/${name}`))) === 404) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`node ${name} still there 10 s after its deletion`);
}

export const randomSuffix = (): string => Math.random().toString(36).slice(2, 8);
