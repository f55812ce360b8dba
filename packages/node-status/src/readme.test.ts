// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import type { NodeCondition } from '@kubelet-ts/api';
import { conditions, createNodeStatus, daemonEndpoints, images, machineInfo, nodeAddress, platformInfo, versionInfo } from './index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const memory: NodeCondition = {
      type: 'MemoryPressure',
      status: 'False',
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
    };
    const evictionManager = { nodeConditions: (): NodeCondition[] => [memory] };

    // README:begin
    const nodeStatus = createNodeStatus({
      nodeName: 'node-1',
      setters: [
        nodeAddress({ nodeIPs: () => ['192.168.1.10'], hostname: () => 'node-1' }),
        machineInfo({ capacity: () => ({ cpu: '4', memory: '8Gi' }), allocatable: () => ({ cpu: '3800m', memory: '7Gi' }), maxPods: 110 }),
        versionInfo({
          kernelVersion: () => '6.1.0',
          osImage: () => 'Debian GNU/Linux 12 (bookworm)',
          containerRuntimeVersion: async () => 'containerd://1.6.20',
          kubeletVersion: 'v1.34.0',
        }),
        platformInfo(),
        daemonEndpoints(() => 0), // no authenticated server in standalone mode
        images(async () => [{ repoTags: ['busybox:1.36'], repoDigests: [], sizeBytes: 4_400_000 }], 50),
        conditions(() => evictionManager.nodeConditions()), // MemoryPressure, DiskPressure, PIDPressure
      ],
    });
    const node = await nodeStatus.getNode(); // a new v1 Node from what the providers say now
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(node.status?.capacity).toEqual({ cpu: '4', memory: '8Gi', pods: '110' });
    expect(node.status?.conditions).toEqual([memory]);
    expect(node.status?.images).toEqual([{ names: ['busybox:1.36'], sizeBytes: 4_400_000 }]);
    expect(node.status?.nodeInfo?.operatingSystem).toBe('linux');
  });
});
