import os from 'node:os';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { allocatableResources, startContainerManager } from './cgroups.js';

describe('cgroup wiring helpers', () => {
  it('logs a hierarchy that cannot be created instead of failing the kubelet', async () => {
    const logger = new RecordingLogger();
    const failing = { start: () => Promise.reject(new Error('mkdir /sys/fs/cgroup/cpu/x: ENOTDIR')) };
    await expect(startContainerManager(failing, logger)).resolves.toBeUndefined();
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]).toMatchObject({ level: 'error', fields: { err: 'mkdir /sys/fs/cgroup/cpu/x: ENOTDIR' } });
  });

  it('gives node allocatable once known, the machine capacity before', () => {
    const state: { known?: { cpuMilli: number; memoryBytes: number } } = {};
    const manager = { getNodeAllocatable: () => (state.known === undefined ? undefined : { allocatable: state.known }) };
    const resources = allocatableResources(manager as unknown as Parameters<typeof allocatableResources>[0]);
    expect(resources()).toEqual({ cpu: String(os.cpus().length), memory: String(os.totalmem()) });
    state.known = { cpuMilli: 1500, memoryBytes: 2_000_000 };
    expect(resources()).toEqual({ cpu: '1500m', memory: '2000000' });
  });
});
