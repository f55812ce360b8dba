import { RecordingLogger } from '@kubelet-ts/common/testing';
import { startContainerManager } from './cgroups.js';

describe('cgroup wiring helpers', () => {
  it('logs a hierarchy that cannot be created instead of failing the kubelet', async () => {
    const logger = new RecordingLogger();
    const failing = { start: () => Promise.reject(new Error('mkdir /sys/fs/cgroup/cpu/x: ENOTDIR')) };
    await expect(startContainerManager(failing, logger)).resolves.toBeUndefined();
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]).toMatchObject({ level: 'error', fields: { err: 'mkdir /sys/fs/cgroup/cpu/x: ENOTDIR' } });
  });
});
