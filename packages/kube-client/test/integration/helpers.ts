// Shared pieces of the integration tests against the real kube-apiserver of scripts/control-plane.sh.
import { randomBytes } from 'node:crypto';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import type { ControlPlaneEnv } from '@kubelet-ts/test-support';
import { createKubeClient, loadKubeconfig } from '../../src/index.js';
import type { ClusterConnection, KubeClient, KubeClientOptions } from '../../src/index.js';

export const env: ControlPlaneEnv = controlPlaneEnv();

export const uniqueName = (suite: string): string => `kts-test-kc-${suite}-${randomBytes(3).toString('hex')}`;

export async function adminConnection(): Promise<ClusterConnection> {
  return loadKubeconfig(env.kubeconfig);
}

export function client(connection: ClusterConnection, options: Partial<KubeClientOptions> = {}): KubeClient {
  return createKubeClient({
    connection,
    qps: 50,
    burst: 100,
    userAgent: 'kubelet-ts-kube-client-it',
    logger: noopLogger as Logger,
    clock: systemClock,
    name: 'it',
    ...options,
  });
}

/** Who the API server says the client is (SelfSubjectReview, authentication.k8s.io/v1). */
export async function whoAmI(c: KubeClient): Promise<{ username: string; groups: string[] }> {
  const review = (await c.create('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  })) as { status: { userInfo: { username: string; groups?: string[] } } };
  return { username: review.status.userInfo.username, groups: review.status.userInfo.groups ?? [] };
}

/** A Node nobody runs, labelled as this suite's, with a status (Node creates keep it). */
export const testNode = (name: string): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubelet-ts.test/suite': 'kube-client' } },
  status: {
    conditions: [
      {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'KubeletHasSufficientMemory',
        message: 'kubelet has sufficient memory available',
        lastHeartbeatTime: '2026-01-01T00:00:00Z',
        lastTransitionTime: '2026-01-01T00:00:00Z',
      },
    ],
  },
});
