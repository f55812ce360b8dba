import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { IMAGE_GC_PERIOD_MS } from '@kubelet-ts/image-gc';
import { FakeImageGC } from '@kubelet-ts/image-gc/testing';
import { createKubeletImageGC, imageGCPeriodMs, imageGCRunnable, imageGCStateFile } from './image-gc.js';

const config = { imageGCHighThresholdPercent: 85, imageGCLowThresholdPercent: 80, imageMinimumGCAge: '2m0s', imageMaximumGCAge: '0s' };

describe('kubelet image GC wiring', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-image-gc-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps its state under <root-dir>/image-gc/state.json and applies the configured thresholds and ages', async () => {
    const clock = new FakeClock();
    const cri = createFakeCriClient({ clock });
    cri.image.addImage({ ref: 'registry.test/old:1', size: 1_000_000 });
    cri.image.addImage({ ref: 'registry.test/infra:1', size: 1_000_000 });
    const gc = createKubeletImageGC({
      config: { ...config, imageGCHighThresholdPercent: 1, imageGCLowThresholdPercent: 0, imageMinimumGCAge: '1m0s' },
      rootDir: dir,
      cri,
      podInfraContainerImage: 'registry.test/infra:1',
      clock,
      logger: new RecordingLogger(),
    });
    await gc.detectImages();
    const saved = JSON.parse(await fs.readFile(imageGCStateFile(dir), 'utf8')) as { images: Record<string, unknown> };
    expect(Object.keys(saved.images)).toHaveLength(2);
    expect(imageGCStateFile(dir)).toBe(path.join(dir, 'image-gc', 'state.json'));
    // younger than imageMinimumGCAge: kept; older: removed, except --pod-infra-container-image
    await gc.deleteUnusedImages();
    expect(cri.image.hasImage('registry.test/old:1')).toBe(true);
    await clock.advance(60_000);
    await gc.deleteUnusedImages();
    expect(cri.image.hasImage('registry.test/old:1')).toBe(false);
    expect(cri.image.hasImage('registry.test/infra:1')).toBe(true);
  });

  it('refuses an inconsistent policy at creation', () => {
    const cri = createFakeCriClient();
    expect(() =>
      createKubeletImageGC({
        config: { ...config, imageGCLowThresholdPercent: 90 },
        rootDir: dir,
        cri,
        clock: new FakeClock(),
        logger: new RecordingLogger(),
      }),
    ).toThrow('LowThresholdPercent 90 can not be higher than HighThresholdPercent 85');
  });

  it('runs every 5 minutes unless imageGCPeriod (kubelet-ts) says otherwise', () => {
    expect(imageGCPeriodMs({})).toBe(IMAGE_GC_PERIOD_MS);
    expect(IMAGE_GC_PERIOD_MS).toBe(300_000);
    expect(imageGCPeriodMs({ imageGCPeriod: '1s' })).toBe(1_000);
  });

  it('runs as a runnable with its period, until the shutdown signal', async () => {
    const gc = new FakeImageGC();
    const controller = new AbortController();
    const running = imageGCRunnable(gc, 1_000).run(controller.signal);
    expect(gc.count('run')).toBe(1);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });
});
