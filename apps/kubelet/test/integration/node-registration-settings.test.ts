/**
 * Registration settings in API mode on the real control plane, each failing when ignored:
 * registerNode: false (the Node object is never created), nodeStatusMaxImages (the Node lists at
 * most that many images).
 */
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { createKubelet, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import { conditionOf, kubectlFor } from './kubectl.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);

interface NodeObj {
  metadata: { name: string };
  status?: { images?: { names: string[] }[]; conditions?: { type: string; status: string }[] };
}

describe('registration settings on the real control plane', () => {
  let kubelet: KubeletUnderTest | undefined;
  afterEach(async () => {
    await kubelet?.cleanup();
    if (kubelet !== undefined) await kubectl('delete', 'node', kubelet.nodeName, '--wait=false').catch(() => undefined);
    kubelet = undefined;
  });

  test('nodeStatusMaxImages: 1 lists one image on the Node', async () => {
    kubelet = await createKubelet('max-images', {
      apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp },
      config: ['nodeStatusMaxImages: 1'],
    });
    await kubelet.start();
    const node = await eventually(
      `node ${kubelet.nodeName} Ready with its images`,
      async () => {
        const n = await kubectl.get<NodeObj>('node', kubelet!.nodeName);
        return conditionOf(n, 'Ready') === 'True' && (n?.status?.images?.length ?? 0) > 0 ? n : undefined;
      },
      90_000,
    );
    // The runtime holds more than one image (pause, busybox, …): only the first by size is listed.
    expect(node.status?.images).toHaveLength(1);
  });

  test('registerNode: false never creates the Node, though the kubelet runs', async () => {
    kubelet = await createKubelet('no-register', {
      apiServer: { bootstrapKubeconfig: cp.bootstrapKubeconfig, nodeIp: cp.nodeIp },
      config: ['registerNode: false'],
    });
    await kubelet.start();
    await waitHealthy(kubelet, 90_000);
    // Several node status periods (10 s): a registering kubelet creates its Node within the first.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    expect(kubelet.running()).toBe(true);
    expect(await kubectl.get<NodeObj>('node', kubelet.nodeName)).toBeUndefined();
  });
});
