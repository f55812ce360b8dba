import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { restoreResourceManagerState, setupDataDirs } from './data-dirs.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kts-datadirs-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const options = () => ({ rootDir: root, memoryManagerPolicy: 'None', logger: new RecordingLogger() });

describe('setupDataDirs', () => {
  it("makes upstream's root dir layout with its modes", async () => {
    await setupDataDirs(join(root, 'kubelet'), join(root, 'pods-logs'));
    for (const dir of ['pods', 'plugins', 'plugins_registry', 'pod-resources']) {
      expect(statSync(join(root, 'kubelet', dir)).mode & 0o777).toBe(0o750);
    }
  });
});

describe('restoreResourceManagerState', () => {
  it('writes the file the upstream kubelet writes for the None policy, byte for byte', async () => {
    await restoreResourceManagerState(options());
    // The upstream kubelet 1.34's own file on a fresh node.
    expect(readFileSync(join(root, 'memory_manager_state'), 'utf8')).toBe('{"policyName":"None","machineState":{},"checksum":4236770233}');
    // Restarting reads it and leaves it alone.
    await restoreResourceManagerState(options());
    expect(readFileSync(join(root, 'memory_manager_state'), 'utf8')).toBe('{"policyName":"None","machineState":{},"checksum":4236770233}');
  });

  it("refuses to start on a node whose checkpoint is another policy's, with upstream's message", async () => {
    writeFileSync(join(root, 'memory_manager_state'), '{"policyName":"Static","machineState":{},"checksum":0}');
    await expect(restoreResourceManagerState(options())).rejects.toThrow(
      `could not restore state from checkpoint: [memorymanager] configured policy "None" differs from state checkpoint policy "Static", please drain this node and delete the memory manager checkpoint file "${join(root, 'memory_manager_state')}" before restarting Kubelet`,
    );
  });

  it('refuses a corrupt memory manager checkpoint', async () => {
    writeFileSync(join(root, 'memory_manager_state'), '{"policyName":"None","machineState":{},"checksum":1}');
    await expect(restoreResourceManagerState(options())).rejects.toThrow(
      /checkpoint is corrupted, please drain this node and delete the memory manager checkpoint file/,
    );
  });
});
