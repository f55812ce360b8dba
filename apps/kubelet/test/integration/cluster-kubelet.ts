// A kubelet-ts in API-server mode on the test bed's control plane, in a namespace of the test's own:
// what every cluster-member suite starts with and tears down.
import type { ControlPlaneEnv } from '@kubelet-ts/test-support';
import { createKubelet, eventually } from './harness.js';
import type { CreateKubeletOptions, KubeletUnderTest } from './harness.js';
import type { Kubectl } from './kubectl.js';
import { conditionOf } from './kubectl.js';

export interface NodeObj {
  metadata: { name: string };
  status?: {
    conditions?: Array<{ type: string; status: string }>;
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
}

export interface ClusterKubelet {
  kubelet: KubeletUnderTest;
  /** The Node once Ready. */
  node: NodeObj;
  /** Deletes the namespace while the kubelet runs (so it stops its pods: no orphan for the next suite), then the kubelet and its Node. */
  teardown(): Promise<void>;
}

/** Creates the namespace, starts the kubelet (TLS bootstrap) and waits until its Node is Ready. */
export async function startClusterKubelet(
  cp: ControlPlaneEnv,
  kubectl: Kubectl,
  label: string,
  namespace: string,
  options: Omit<CreateKubeletOptions, 'apiServer'> = {},
): Promise<ClusterKubelet> {
  const kubelet = await createKubelet(label, { ...options, apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp } });
  const teardown = async (): Promise<void> => {
    await kubectl('delete', 'namespace', namespace, '--timeout=120s').catch(() => undefined);
    await kubelet.cleanup();
    await kubectl('delete', 'node', kubelet.nodeName, '--wait=false').catch(() => undefined);
  };
  try {
    await kubectl('create', 'namespace', namespace);
    await kubelet.start();
    const node = await eventually(
      `node ${kubelet.nodeName} Ready`,
      async () => {
        if (!kubelet.running()) throw new Error(`kubelet exited:\n${kubelet.output().slice(-4000)}`);
        const n = await kubectl.get<NodeObj>('node', kubelet.nodeName);
        return conditionOf(n, 'Ready') === 'True' ? n : undefined;
      },
      // After api-mode.test.ts's API server outage the controller manager takes a while to approve CSRs again.
      150_000,
      500,
    );
    return { kubelet, node, teardown };
  } catch (err) {
    await teardown();
    throw err;
  }
}

/** The claims of a JWT (a service account token), unverified. */
export function jwtClaims(token: string): Record<string, unknown> & {
  iat?: number;
  exp?: number;
  aud?: string[];
  'kubernetes.io'?: { namespace?: string; pod?: { name?: string; uid?: string }; serviceaccount?: { name?: string } };
} {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as ReturnType<typeof jwtClaims>;
}
