// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createMemoryCheckpointManager } from '@kubelet-ts/checkpoint-manager/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createMemoryManager, nodeAllocatableReservation } from './index.js';
import type { MemoryTopology } from './index.js';
import { memoryTopology } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
// The machine's memory is whatever it is; the snippet's allocation is checked on a fake one.
const readMemoryTopology = async (): Promise<MemoryTopology> => memoryTopology(1, 8);

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const store = createMemoryCheckpointManager();
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
      spec: {
        containers: [
          { name: 'main', image: 'busybox', resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '1', memory: '1Gi' } } },
        ],
      },
    };
    const pods = [pod];
    // README:begin
    const topology = await readMemoryTopology(); // or a fake: memoryTopology(1, 8) from ./testing
    const manager = createMemoryManager({
      policy: 'Static',
      topology,
      reservedMemory: [{ numaNode: 0, limits: { memory: '1124Mi' } }],
      // kube- + system-reserved + evictionHard memory.available: reservedMemory must add up to it
      nodeAllocatableReservation: nodeAllocatableReservation({
        kubeReserved: { memory: '1Gi' },
        evictionHard: { 'memory.available': '100Mi' },
        memoryCapacityBytes: 8 * 1024 ** 3,
        topology,
      }),
      store, // @kubelet-ts/checkpoint-manager's createCheckpointManager({ dir: '/var/lib/kubelet' })
      statePath: '/var/lib/kubelet/memory_manager_state',
      activePods: () => pods,
    });
    await manager.start(); // checks reservedMemory, restores the checkpoint; throws where upstream refuses to start
    manager.allocate(pod, pod.spec.containers[0]!, null); // the topology manager's admission does this
    const mems = manager.cpusetMemsFor(pod.metadata.uid, 'main'); // '0': create the container with cpuset.mems 0
    // README:end
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(mems).toBe('0');
  });
});
