import { RecordingLogger } from '@kubelet-ts/common/testing';
import { checkCgroupDriver, driverFromContainerdInfo } from './driver-check.js';

const unimplemented = Object.assign(new Error('UNIMPLEMENTED: unknown method RuntimeConfig'), { code: 'UNIMPLEMENTED' });
// The shape containerd 1.6 returns in its verbose Status (trimmed).
const containerdInfo = (systemdCgroup: boolean | undefined) => ({
  config: JSON.stringify({
    containerd: {
      defaultRuntimeName: 'runc',
      runtimes: {
        runc: {
          runtimeType: 'io.containerd.runc.v2',
          options: systemdCgroup === undefined ? null : { Root: '/run/x', SystemdCgroup: systemdCgroup },
        },
      },
    },
  }),
});

describe('cgroup driver check', () => {
  it('uses CRI RuntimeConfig when the runtime answers it', async () => {
    const result = await checkCgroupDriver('cgroupfs', {
      runtimeConfig: async () => ({ linux: { cgroupDriver: 'CGROUPFS' } }),
      status: async () => ({ info: {} }),
    });
    expect(result).toEqual({ result: 'match', runtimeDriver: 'cgroupfs', source: 'RuntimeConfig' });
  });

  it('reports a mismatch plainly, with what to change', async () => {
    const logger = new RecordingLogger();
    const result = await checkCgroupDriver(
      'systemd',
      { runtimeConfig: async () => ({ linux: { cgroupDriver: 'CGROUPFS' } }), status: async () => ({}) },
      logger,
    );
    expect(result).toMatchObject({ result: 'mismatch', runtimeDriver: 'cgroupfs' });
    expect(result.result === 'mismatch' && result.message).toMatch(
      /cgroup driver mismatch: the kubelet is configured with cgroupDriver "systemd" but the container runtime uses "cgroupfs".*Set cgroupDriver: cgroupfs/,
    );
    expect(logger.records.some((r) => r.level === 'error' && r.msg.startsWith('cgroup driver mismatch'))).toBe(true);
  });

  it('falls back to the runtime config in the verbose status when RuntimeConfig is UNIMPLEMENTED (containerd 1.6)', async () => {
    const runtime = (systemdCgroup: boolean | undefined) => ({
      runtimeConfig: async () => {
        throw unimplemented;
      },
      status: async () => ({ info: containerdInfo(systemdCgroup) }),
    });
    expect(await checkCgroupDriver('cgroupfs', runtime(false))).toMatchObject({ result: 'match', source: 'runtime config' });
    expect(await checkCgroupDriver('cgroupfs', runtime(true))).toMatchObject({
      result: 'mismatch',
      runtimeDriver: 'systemd',
      source: 'runtime config',
    });
    // runc's default is cgroupfs when SystemdCgroup is unset.
    expect(await checkCgroupDriver('cgroupfs', runtime(undefined))).toMatchObject({ result: 'match' });
  });

  it('warns that it cannot be checked when neither tells', async () => {
    const logger = new RecordingLogger();
    const result = await checkCgroupDriver(
      'cgroupfs',
      {
        runtimeConfig: async () => {
          throw unimplemented;
        },
        status: async () => ({ info: { config: 'not json' } }),
      },
      logger,
    );
    expect(result).toMatchObject({ result: 'unknown', message: expect.stringContaining('cannot check the cgroup driver') });
    expect(logger.records.some((r) => r.level === 'warn')).toBe(true);
    expect(driverFromContainerdInfo(undefined)).toBeUndefined();
  });
});
