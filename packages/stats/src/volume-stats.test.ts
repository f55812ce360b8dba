import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createVolumeStatsSource } from './index.js';
import { FakeHostFs } from './testing/index.js';

describe('createVolumeStatsSource', () => {
  it('measures emptyDir-based volumes with du and statfs, and leaves out hostPath and CSI volumes', async () => {
    const fs = new FakeHostFs();
    const base = '/var/lib/kubelet/pods/uid-1/volumes';
    fs.setStatfs('/var/lib/kubelet', { bsize: 4096, blocks: 1000, bfree: 400, bavail: 300, files: 100, ffree: 60 });
    fs.setFile(`${base}/kubernetes.io~empty-dir/cache/data`, 'x', { blocks: 16 });
    fs.setFile(`${base}/kubernetes.io~configmap/cfg/key`, 'y', { blocks: 8 });
    fs.mkdir('/srv/host');
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const listed: string[] = [];
    const source = createVolumeStatsSource({
      host: fs,
      clock,
      listVolumes: (uid) => {
        listed.push(uid);
        return [
          { volumeName: 'cache', pluginName: 'kubernetes.io/empty-dir', path: `${base}/kubernetes.io~empty-dir/cache` },
          { volumeName: 'cfg', pluginName: 'kubernetes.io/configmap', path: `${base}/kubernetes.io~configmap/cfg` },
          { volumeName: 'host', pluginName: 'kubernetes.io/host-path', path: '/srv/host' },
        ];
      },
    });
    const stats = await source(newPod({ uid: 'uid-1' }));
    expect(listed).toEqual(['uid-1']);
    expect(stats).toEqual([
      {
        name: 'cache',
        time: '2026-01-01T00:00:00.000Z',
        usedBytes: (8 + 16) * 512,
        inodesUsed: 2,
        capacityBytes: 4096 * 1000,
        availableBytes: 4096 * 300,
        inodes: 100,
        inodesFree: 60,
      },
      expect.objectContaining({ name: 'cfg', usedBytes: (8 + 8) * 512, inodesUsed: 2 }),
    ]);
  });

  it('leaves out a volume that cannot be measured and logs why', async () => {
    const logger = new RecordingLogger();
    const source = createVolumeStatsSource({
      host: new FakeHostFs(),
      logger,
      listVolumes: () => [{ volumeName: 'gone', pluginName: 'kubernetes.io/empty-dir', path: '/nowhere' }],
    });
    expect(await source(newPod({ uid: 'u' }))).toEqual([]);
    expect(logger.records.some((r) => r.msg === 'Failed to measure a volume')).toBe(true);
  });
});
