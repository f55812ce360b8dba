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

  // A directory takes 8 blocks in the fake filesystem.
  describe('caching (volumeStatsAggPeriod)', () => {
    const base = '/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~empty-dir';
    // Lets the background measurement (promises on the fake filesystem) finish; no time passes.
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
    };
    function setup(mounted: Array<{ volumeName: string; path: string }>) {
      const fs = new FakeHostFs();
      fs.setStatfs('/var/lib/kubelet', { bsize: 4096, blocks: 1000, bfree: 400, bavail: 300, files: 100, ffree: 60 });
      fs.setFile(`${base}/cache/data`, 'x', { blocks: 8 });
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const source = createVolumeStatsSource({
        host: fs,
        clock,
        aggPeriodMs: 60_000,
        random: () => 0.5, // next measurement 90 s after the last
        listVolumes: () => mounted.map((v) => ({ ...v, pluginName: 'kubernetes.io/empty-dir' })),
      });
      return { fs, clock, source };
    }
    const used = (stats: Array<{ name: string; usedBytes?: number }>) => stats.map((v) => [v.name, v.usedBytes]);

    it('measures a new pod on the first request, then returns the cached figures until the jittered period is over', async () => {
      const { fs, clock, source } = setup([{ volumeName: 'cache', path: `${base}/cache` }]);
      const pod = newPod({ uid: 'uid-1' });
      expect(used(await source(pod))).toEqual([['cache', (8 + 8) * 512]]);

      fs.setFile(`${base}/cache/more`, 'y', { blocks: 1000 });
      await clock.advance(89_000);
      expect(used(await source(pod))).toEqual([['cache', (8 + 8) * 512]]);
      await settle();
      expect(used(await source(pod))).toEqual([['cache', (8 + 8) * 512]]);

      // Due: this request still gets the cached figure and starts du in the background; the next one sees it.
      await clock.advance(1_000);
      expect(used(await source(pod))).toEqual([['cache', (8 + 8) * 512]]);
      await settle();
      expect(await source(pod)).toEqual([
        expect.objectContaining({ name: 'cache', usedBytes: (8 + 8 + 1000) * 512, inodesUsed: 3, time: '2026-01-01T00:01:30.000Z' }),
      ]);

      // And not again before another period × 1.5 from that measurement.
      fs.setFile(`${base}/cache/third`, 'z', { blocks: 8 });
      await clock.advance(89_000);
      await source(pod);
      await settle();
      expect(used(await source(pod))).toEqual([['cache', (8 + 8 + 1000) * 512]]);
    });

    it('does not run du for cached volumes at all before the period (no filesystem walk)', async () => {
      const { fs, clock, source } = setup([{ volumeName: 'cache', path: `${base}/cache` }]);
      const pod = newPod({ uid: 'uid-1' });
      await source(pod);
      // A walk now would fail (and leave the volume out): the cached figure proves none happens.
      fs.remove(`${base}/cache`);
      await clock.advance(30_000);
      await source(pod);
      await settle();
      expect(used(await source(pod))).toEqual([['cache', (8 + 8) * 512]]);
    });

    it('measures a volume mounted after the pod was first measured right away, and drops an unmounted one', async () => {
      const mounted = [{ volumeName: 'cache', path: `${base}/cache` }];
      const { fs, source } = setup(mounted);
      const pod = newPod({ uid: 'uid-1' });
      await source(pod);
      fs.setFile(`${base}/scratch/f`, 'x', { blocks: 16 });
      mounted.push({ volumeName: 'scratch', path: `${base}/scratch` });
      expect(used(await source(pod))).toEqual([
        ['cache', (8 + 8) * 512],
        ['scratch', (8 + 16) * 512],
      ]);
      mounted.shift();
      expect(used(await source(pod))).toEqual([['scratch', (8 + 16) * 512]]);
    });

    it('rejects a period that is not positive', () => {
      expect(() => createVolumeStatsSource({ listVolumes: () => [], aggPeriodMs: 0 })).toThrow(/period must be > 0/);
    });
  });
});
