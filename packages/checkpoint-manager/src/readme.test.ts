// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { CPU_MANAGER_STATE_FILE, createCheckpointManager, decodeCpuManagerState, encodeCpuManagerState } from './index.js';
import { createMemoryCheckpointManager } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const rootDir = mkdtempSync(join(tmpdir(), 'kts-checkpoint-readme-'));
    try {
      // README:begin
      const store = createCheckpointManager({ dir: rootDir }); // the kubelet's root dir, e.g. /var/lib/kubelet
      await store.write(CPU_MANAGER_STATE_FILE, encodeCpuManagerState({ policyName: 'none', defaultCpuSet: '', entries: {} }));
      const file = (await store.read(CPU_MANAGER_STATE_FILE)).toString(); // {"policyName":"none","defaultCpuSet":"","checksum":1353318690}
      const { state } = decodeCpuManagerState(Buffer.from(file), CPU_MANAGER_STATE_FILE); // checks the checksum
      // README:end
      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      expect(file).toBe('{"policyName":"none","defaultCpuSet":"","checksum":1353318690}');
      expect(state.policyName).toBe('none');
    } finally {
      rmSync(rootDir, { recursive: true, force: true });
    }
  });

  it('documents the fake', async () => {
    const store = createMemoryCheckpointManager({ cpu_manager_state: '{"policyName":"none","defaultCpuSet":"","checksum":1353318690}' });
    expect(readme).toContain('createMemoryCheckpointManager');
    expect(decodeCpuManagerState(await store.read('cpu_manager_state'), 'x').state.policyName).toBe('none');
  });
});
