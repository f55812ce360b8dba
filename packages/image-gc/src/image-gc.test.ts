import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock, RecordingLogger, RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import type { StatusResponse } from '@kubelet-ts/cri-client';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import type { FakeCriClient } from '@kubelet-ts/cri-client/testing';
import { ImageGCError } from './errors.js';
import { createImageGC } from './image-gc.js';
import type { FsCapacity, ImageGCOptions } from './image-gc.js';

const MB = 1_000_000;
const MINUTE = 60_000;
const id = (c: string): string => `sha256:${c.repeat(64)}`;

/** A fake CRI with images a…f, the sandbox image and a runtime-pinned image; usage 90 % of 100 MB unless changed. */
function setup(extra: Partial<ImageGCOptions> = {}) {
  const clock = new FakeClock();
  const cri: FakeCriClient = createFakeCriClient({ clock });
  for (const [name, c] of [
    ['a', 'a'],
    ['b', 'b'],
    ['c', 'c'],
    ['d', 'd'],
    ['e', 'e'],
    ['f', 'f'],
  ] as const) {
    cri.image.addImage({ ref: `registry.test/${name}:1`, id: id(c), size: 6 * MB });
  }
  cri.image.addImage({ ref: 'registry.test/pause:3.9', id: id('0'), size: MB });
  cri.image.addImage({ ref: 'registry.test/pinned:1', id: id('9'), size: MB, pinned: true });
  const disk: FsCapacity = { capacityBytes: 100 * MB, availableBytes: 10 * MB };
  const statfsCalls: string[] = [];
  const logger = new RecordingLogger();
  const gc = createImageGC({
    imageService: cri.image,
    runtimeService: cri.runtime,
    sandboxImage: 'registry.test/pause:3.9',
    statfs: async (p) => {
      statfsCalls.push(p);
      return { ...disk };
    },
    clock,
    logger,
    ...extra,
  });
  let n = 0;
  /** A container using `ref`; returns its ID. */
  const useImage = async (ref: string, start = true): Promise<string> => {
    n += 1;
    const { podSandboxId } = await cri.runtime.runPodSandbox({ config: { metadata: { name: `p${n}`, namespace: 'ns', uid: `u${n}` } } });
    const { containerId } = await cri.runtime.createContainer({ podSandboxId, config: { metadata: { name: 'c' }, image: { image: ref } } });
    if (start) await cri.runtime.startContainer({ containerId });
    return containerId;
  };
  const removeContainer = async (containerId: string): Promise<void> => {
    await cri.runtime.removeContainer({ containerId });
  };
  const present = (): string[] =>
    ['a', 'b', 'c', 'd', 'e', 'f', 'pause', 'pinned'].filter((x) =>
      cri.image.hasImage(x === 'pause' ? 'registry.test/pause:3.9' : `registry.test/${x}:1`),
    );
  const removedOrder = (): string[] => cri.image.callsOf('removeImage').map((c) => (c.request as { image: { image: string } }).image.image);
  return { clock, cri, gc, disk, statfsCalls, logger, useImage, removeContainer, present, removedOrder };
}

/** Uses each image in turn (a container exists during one detection, then is removed), one minute apart. */
async function useInTurn(t: ReturnType<typeof setup>, refs: string[]): Promise<void> {
  for (const ref of refs) {
    await t.clock.advance(MINUTE);
    const c = await t.useImage(ref);
    await t.gc.detectImages();
    await t.removeContainer(c);
  }
}

describe('createImageGC: garbageCollect', () => {
  it('over the high threshold, frees down to the low threshold least recently used first, keeping in-use, sandbox and pinned images', async () => {
    const metrics = new RecordingMetrics();
    const t = setup({ metrics });
    await t.gc.detectImages(); // everything first detected now
    // a used first, then c, then b; f never used (oldest: lastUsed 0)
    await useInTurn(t, ['registry.test/a:1', 'registry.test/c:1', 'registry.test/b:1']);
    // d is used by a running container, e by an exited (not removed) one
    await t.useImage('registry.test/d:1');
    const exited = await t.useImage('registry.test/e:1');
    t.cri.runtime.exitContainer(exited, 0);
    await t.clock.advance(5 * MINUTE);

    // 90 % used ≥ 85: free 100 MB × 20 % − 10 MB = 10 MB → two 6 MB images
    const result = await t.gc.garbageCollect();

    expect(result.usagePercent).toBe(90);
    expect(result.bytesToFree).toBe(10 * MB);
    expect(result.freedBytes).toBe(12 * MB);
    expect(result.removed.map((r) => r.id)).toEqual([id('f'), id('a')]);
    expect(result.removed.every((r) => r.reason === 'space')).toBe(true);
    expect(metrics.value('kubelet_image_garbage_collected_total', { reason: 'space' })).toBe(2);
    expect(t.removedOrder()).toEqual([id('f'), id('a')]);
    expect(t.present()).toEqual(['b', 'c', 'd', 'e', 'pause', 'pinned']);
    expect(t.statfsCalls).toEqual(['/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs']);
  });

  it('never removes in-use, sandbox or pinned images even when everything must go', async () => {
    const t = setup({ policy: { highThresholdPercent: 1, lowThresholdPercent: 0, minAgeMs: 0 } });
    await t.useImage('registry.test/d:1');
    const created = await t.useImage('registry.test/e:1', false); // created, never started
    expect(created).not.toBe('');
    await t.clock.advance(MINUTE);
    const err = await t.gc.garbageCollect().catch((e: unknown) => e);
    expect(ImageGCError.is(err) && err.code).toBe('FREE_DISK_SPACE_FAILED');
    expect((err as Error).message).toBe(
      `Failed to garbage collect required amount of images. Attempted to free ${90 * MB} bytes, but only found ${24 * MB} bytes eligible to free.`,
    );
    expect(t.present()).toEqual(['d', 'e', 'pause', 'pinned']);
  });

  it('does nothing under the high threshold', async () => {
    const t = setup();
    t.disk.availableBytes = 16 * MB; // 84 %
    await t.clock.advance(10 * MINUTE);
    const result = await t.gc.garbageCollect();
    expect(result).toEqual({ usagePercent: 84, bytesToFree: 0, freedBytes: 0, removed: [] });
    expect(t.cri.image.callsOf('removeImage')).toHaveLength(0);
  });

  it('skips images first detected less than imageMinimumGCAge ago', async () => {
    const t = setup({ policy: { highThresholdPercent: 1, lowThresholdPercent: 0 } });
    await t.gc.detectImages();
    await t.clock.advance(MINUTE);
    t.cri.image.addImage({ ref: 'registry.test/new:1', id: id('1'), size: 50 * MB });
    await t.gc.detectImages();
    await t.clock.advance(MINUTE + 30_000); // the old images 2.5 min, the new one 1.5 min
    await expect(t.gc.garbageCollect()).rejects.toMatchObject({ code: 'FREE_DISK_SPACE_FAILED' });
    expect(t.removedOrder()).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map(id));
    expect(t.cri.image.hasImage('registry.test/new:1')).toBe(true);
  });

  it('imageMaximumGCAge removes images unused for longer, whatever the usage, once that long has passed since GC began', async () => {
    const metrics = new RecordingMetrics();
    const t = setup({ policy: { maxAgeMs: 10 * MINUTE }, metrics });
    t.disk.availableBytes = 50 * MB; // 50 %: no space pressure
    const c = await t.useImage('registry.test/b:1');
    await t.gc.detectImages();
    await t.removeContainer(c);
    await t.clock.advance(9 * MINUTE);
    const early = await t.gc.garbageCollect();
    expect(early.removed).toEqual([]); // less than maxAge since GC began
    await t.clock.advance(2 * MINUTE);
    const result = await t.gc.garbageCollect();
    // never-used a, c, d, e, f are past maxAge; b was used 11 min ago, also past it
    expect(result.removed.map((r) => [r.id, r.reason])).toEqual(['a', 'c', 'd', 'e', 'f', 'b'].map((x) => [id(x), 'age']));
    expect(result.bytesToFree).toBe(0);
    expect(metrics.samples('kubelet_image_garbage_collected_total').map((x) => [x.labels, x.value])).toEqual([[{ reason: 'age' }, 6]]);
    expect(t.present()).toEqual(['pause', 'pinned']);
  });

  it('imageMaximumGCAge keeps images used within it', async () => {
    const t = setup({ policy: { maxAgeMs: 10 * MINUTE } });
    t.disk.availableBytes = 50 * MB;
    await t.clock.advance(11 * MINUTE);
    const c = await t.useImage('registry.test/b:1');
    await t.gc.detectImages();
    await t.removeContainer(c);
    await t.clock.advance(MINUTE);
    const result = await t.gc.garbageCollect();
    expect(result.removed.map((r) => r.id)).not.toContain(id('b'));
    expect(t.cri.image.hasImage('registry.test/b:1')).toBe(true);
  });

  it('goes on after a RemoveImage failure and reports it', async () => {
    const t = setup();
    await t.gc.detectImages();
    await t.clock.advance(5 * MINUTE);
    t.cri.image.injectError('removeImage', 'UNKNOWN');
    const err = await t.gc.garbageCollect().catch((e: unknown) => e);
    expect(ImageGCError.is(err) && err.code).toBe('REMOVE_FAILED');
    // the first candidate (a) failed; b and c were removed instead
    expect(t.present()).toEqual(['a', 'd', 'e', 'f', 'pause', 'pinned']);
  });

  it('an image filesystem of capacity 0 is an error, as is a failing statfs', async () => {
    const t = setup();
    t.disk.capacityBytes = 0;
    t.disk.availableBytes = 0;
    await expect(t.gc.garbageCollect()).rejects.toMatchObject({ code: 'IMAGE_FS' });
    const t2 = setup({
      statfs: async () => {
        throw new Error('ENOENT');
      },
    });
    await expect(t2.gc.garbageCollect()).rejects.toMatchObject({
      code: 'IMAGE_FS',
      message: expect.stringContaining('Failed to statfs the image filesystem'),
    });
  });

  it('nothing is removed when listing containers fails', async () => {
    const t = setup({ policy: { minAgeMs: 0 } });
    t.cri.runtime.injectError('listContainers', 'UNAVAILABLE');
    await expect(t.gc.garbageCollect()).rejects.toMatchObject({ code: 'RUNTIME' });
    expect(t.cri.image.callsOf('removeImage')).toHaveLength(0);
  });
});

describe('createImageGC: deleteUnusedImages (for eviction)', () => {
  it('removes every unused image past minAge, least recently used first, and logs the bytes freed', async () => {
    const t = setup();
    await t.gc.detectImages();
    await useInTurn(t, ['registry.test/c:1', 'registry.test/a:1']);
    await t.useImage('registry.test/d:1');
    await t.clock.advance(5 * MINUTE);
    await expect(t.gc.deleteUnusedImages()).resolves.toBeUndefined();
    expect(t.removedOrder()).toEqual([id('b'), id('e'), id('f'), id('c'), id('a')]);
    expect(t.logger.find('Deleted unused images')[0]?.fields).toEqual({ freedBytes: 30 * MB, removed: 5 });
    expect(t.present()).toEqual(['d', 'pause', 'pinned']);
  });

  it('works passed around unbound as a () => Promise<void> reclaim, serialized with a concurrent garbageCollect (no image removed twice)', async () => {
    const t = setup();
    await t.gc.detectImages();
    await t.clock.advance(5 * MINUTE);
    const { garbageCollect } = t.gc;
    const reclaim: () => Promise<void> = t.gc.deleteUnusedImages;
    const both = await Promise.allSettled([garbageCollect(), reclaim()]);
    expect(both.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    const removed = t.removedOrder();
    expect(new Set(removed).size).toBe(removed.length);
    expect(t.present()).toEqual(['pause', 'pinned']);
  });
});

describe('createImageGC: the sandbox image', () => {
  it('is read from the runtime verbose Status (containerd config.sandboxImage) when not given', async () => {
    const t = setup({ sandboxImage: undefined, policy: { minAgeMs: 0 } });
    const status = t.cri.runtime.status.bind(t.cri.runtime);
    t.cri.runtime.status = async (req, opts): Promise<StatusResponse> => {
      const answer = await status(req, opts);
      return {
        ...answer,
        info: req.verbose ? { config: JSON.stringify({ sandboxImage: 'registry.test/pause:3.9', containerd: {} }) } : {},
      };
    };
    await t.gc.deleteUnusedImages();
    expect(t.removedOrder()).not.toContain(id('0'));
    expect(t.present()).toEqual(['pause', 'pinned']);
    expect(t.gc.imageRecords().find((r) => r.id === id('0'))).toMatchObject({ pinned: true, repoTags: ['registry.test/pause:3.9'] });
  });

  it('pinnedImages protects more references', async () => {
    const t = setup({ pinnedImages: ['registry.test/f:1', id('e')], policy: { minAgeMs: 0 } });
    await t.gc.deleteUnusedImages();
    expect(t.present()).toEqual(['e', 'f', 'pause', 'pinned']);
  });
});

describe('createImageGC: last-used times survive a restart', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-gc-test-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('a new manager on the same state file removes the least recently used first (by ID order it would be the other way)', async () => {
    const stateFile = path.join(dir, 'image-gc', 'state.json');
    const t = setup({ stateFile });
    // f is used before e: f is older, although e's ID sorts first
    await useInTurn(t, ['registry.test/f:1', 'registry.test/e:1']);
    const saved = JSON.parse(await fs.readFile(stateFile, 'utf8')) as {
      version: number;
      images: Record<string, { firstDetected: string; lastUsed?: string }>;
    };
    expect(saved.version).toBe(1);
    expect(saved.images[id('f')]?.lastUsed).toBe(new Date(t.clock.now() - MINUTE).toISOString());
    expect(saved.images[id('e')]?.lastUsed).toBe(new Date(t.clock.now()).toISOString());
    expect(saved.images[id('a')]?.lastUsed).toBeUndefined();

    // "restart": a fresh manager, same runtime and file; a, b, c, d gone meanwhile
    for (const x of ['a', 'b', 'c', 'd']) await t.cri.image.removeImage({ image: { image: `registry.test/${x}:1` } });
    await t.clock.advance(MINUTE);
    const restarted = createImageGC({
      imageService: t.cri.image,
      runtimeService: t.cri.runtime,
      sandboxImage: 'registry.test/pause:3.9',
      statfs: async () => ({ capacityBytes: 100 * MB, availableBytes: 15 * MB }),
      stateFile,
      clock: t.clock,
    });
    t.cri.image.calls.length = 0;
    // first detected before the restart (more than minAge ago), so eligible at once; 85 %: 5 MB to free, one image
    const result = await restarted.garbageCollect();
    expect(result.removed.map((r) => r.id)).toEqual([id('f')]);
    expect(t.present()).toEqual(['e', 'pause', 'pinned']);
  });

  it('keeps first-detected times, so minAge counts from the first sighting before the restart', async () => {
    const stateFile = path.join(dir, 'state.json');
    const t = setup({ stateFile });
    await t.gc.detectImages();
    await t.clock.advance(3 * MINUTE);
    const restarted = createImageGC({
      imageService: t.cri.image,
      runtimeService: t.cri.runtime,
      sandboxImage: 'registry.test/pause:3.9',
      stateFile,
      clock: t.clock,
    });
    await restarted.detectImages();
    expect(restarted.imageRecords().find((r) => r.id === id('a'))?.firstDetectedMs).toBe(t.clock.now() - 3 * MINUTE);
    // images gone are dropped from the file
    await t.cri.image.removeImage({ image: { image: id('a') } });
    await restarted.detectImages();
    const saved = JSON.parse(await fs.readFile(stateFile, 'utf8')) as { images: Record<string, unknown> };
    expect(Object.keys(saved.images)).not.toContain(id('a'));
    expect(Object.keys(saved.images)).toContain(id('b'));
  });

  it('ignores an invalid state file with a warning and starts empty', async () => {
    const stateFile = path.join(dir, 'state.json');
    await fs.writeFile(stateFile, JSON.stringify({ version: 1, images: { [id('a')]: { firstDetected: 'yesterday' } } }));
    const t = setup({ stateFile });
    await t.gc.detectImages();
    expect(t.gc.imageRecords().find((r) => r.id === id('a'))?.firstDetectedMs).toBe(t.clock.now());
    const warning = t.logger.records.find((r) => r.level === 'warn');
    expect(warning?.msg).toBe('Ignoring an invalid image GC state file; last-used times start empty');
    expect(String(warning?.fields['err'])).toContain(`images.${id('a')}.firstDetected`);
    // and it is replaced by a valid one
    const saved = JSON.parse(await fs.readFile(stateFile, 'utf8')) as { images: Record<string, { firstDetected: string }> };
    expect(saved.images[id('a')]?.firstDetected).toBe(new Date(t.clock.now()).toISOString());
  });

  it('ignores a state file that is not JSON', async () => {
    const stateFile = path.join(dir, 'state.json');
    await fs.writeFile(stateFile, '{"version": 1, "ima');
    const t = setup({ stateFile });
    await t.gc.detectImages();
    expect(t.logger.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    expect(t.gc.imageRecords()).toHaveLength(8);
  });
});

describe('createImageGC: run', () => {
  it('runs at once and every period until aborted; failures are logged, not thrown', async () => {
    const t = setup({ policy: { minAgeMs: 0 } });
    t.disk.availableBytes = 50 * MB;
    const controller = new AbortController();
    const running = t.gc.run(controller.signal, { periodMs: 5 * MINUTE });
    await flushMicrotasks();
    expect(t.statfsCalls).toHaveLength(1);
    t.cri.image.injectError('listImages', 'UNAVAILABLE', { times: 2 });
    await t.clock.advance(5 * MINUTE);
    await t.clock.advance(5 * MINUTE);
    expect(t.logger.records.filter((r) => r.level === 'warn').map((r) => r.msg)).toEqual([
      'Image garbage collection failed once. Stats initialization may not have completed yet',
    ]);
    expect(t.logger.records.filter((r) => r.level === 'error').map((r) => r.msg)).toEqual([
      'Image garbage collection failed multiple times in a row',
    ]);
    t.disk.availableBytes = 10 * MB;
    await t.clock.advance(5 * MINUTE);
    expect(t.statfsCalls).toHaveLength(2);
    expect(t.removedOrder()).toHaveLength(2);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
    await t.clock.advance(60 * MINUTE);
    expect(t.statfsCalls).toHaveLength(2);
  });

  it('with highThresholdPercent 100 only detects (upstream: image GC disabled)', async () => {
    const t = setup({ policy: { highThresholdPercent: 100, minAgeMs: 0 } });
    const controller = new AbortController();
    const running = t.gc.run(controller.signal, { periodMs: MINUTE });
    await flushMicrotasks();
    await t.clock.advance(MINUTE);
    expect(t.cri.image.callsOf('listImages')).toHaveLength(2);
    expect(t.statfsCalls).toHaveLength(0);
    expect(t.cri.image.callsOf('removeImage')).toHaveLength(0);
    controller.abort();
    await running;
  });
});

describe('createImageGC: policy', () => {
  it('refuses thresholds out of range or inverted, as upstream', () => {
    const cri = createFakeCriClient();
    const make = (policy: ImageGCOptions['policy']) => () =>
      createImageGC({ imageService: cri.image, runtimeService: cri.runtime, policy });
    expect(make({ highThresholdPercent: 101 })).toThrow('invalid HighThresholdPercent 101, must be in range [0-100]');
    expect(make({ lowThresholdPercent: -1 })).toThrow('invalid LowThresholdPercent -1, must be in range [0-100]');
    expect(make({ highThresholdPercent: 50, lowThresholdPercent: 60 })).toThrow(
      'LowThresholdPercent 60 can not be higher than HighThresholdPercent 50',
    );
    let err: unknown;
    try {
      make({ minAgeMs: -1 })();
    } catch (e) {
      err = e;
    }
    expect(ImageGCError.is(err) && err.code).toBe('INVALID_POLICY');
  });
});
