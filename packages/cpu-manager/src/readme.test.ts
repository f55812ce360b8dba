// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { createMemoryCheckpointManager } from '@kubelet-ts/checkpoint-manager/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createCpuManager } from './index.js';
import type { CpuTopology } from './index.js';
import { FakeCpuManagerRuntime, cpuTopology } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
// The machine's topology is whatever it is; the snippet's allocation is checked on a fake one.
const readCpuTopology = async (): Promise<CpuTopology> => cpuTopology(1, 4);

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const store = createMemoryCheckpointManager();
    const runtime = new FakeCpuManagerRuntime();
    const pod: Pod = {
      metadata: { name: 'web', namespace: 'default', uid: 'uid-web' },
      spec: {
        containers: [
          { name: 'main', image: 'busybox', resources: { requests: { cpu: '1', memory: '64Mi' }, limits: { cpu: '1', memory: '64Mi' } } },
        ],
      },
    };
    const pods = [pod];
    // README:begin
    const manager = createCpuManager({
      policy: 'static',
      topology: await readCpuTopology(), // or a fake: cpuTopology(1, 4) from ./testing
      reservedCpus: '0',
      store, // @kubelet-ts/checkpoint-manager's createCheckpointManager({ dir: '/var/lib/kubelet' })
      statePath: '/var/lib/kubelet/cpu_manager_state',
      runtime, // listRunningContainers() and updateCpuset(id, cpuset), over CRI
      activePods: () => pods,
    });
    await manager.start(); // restores the checkpoint; throws where upstream refuses to start
    const verdict = manager.admit(pod); // { admit: true } or UnexpectedAdmissionError "Allocate failed due to …"
    const cpuset = manager.cpusetFor(pod.metadata.uid, 'main'); // '1': create the container with it
    // README:end
    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(verdict).toEqual({ admit: true });
    expect(cpuset).toBe('1');
  });
});
