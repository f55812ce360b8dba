import { readFileSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { createImageGC } from './index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim, on the fake CRI', async () => {
    const rootDir = await fs.mkdtemp(path.join(os.tmpdir(), 'image-gc-readme-'));
    const clock = new FakeClock();
    const cri = createFakeCriClient({ clock });
    cri.image.addImage({ ref: 'registry.test/old:1', size: 5_000_000 });
    cri.image.addImage({ ref: 'registry.test/pause:3.9', size: 1_000_000 });
    const testOnly = {
      clock,
      statfs: async () => ({ capacityBytes: 100_000_000, availableBytes: 15_000_000 }),
      sandboxImage: 'registry.test/pause:3.9',
    };
    const controller = new AbortController();
    const signal = controller.signal;
    await createImageGC({
      imageService: cri.image,
      runtimeService: cri.runtime,
      stateFile: path.join(rootDir, 'image-gc', 'state.json'),
      clock,
    }).detectImages();
    await clock.advance(3 * 60_000);
    try {
      // README:begin
      const imageGc = createImageGC({
        imageService: cri.image, // CRI ListImages, ImageStatus, RemoveImage, ImageFsInfo
        runtimeService: cri.runtime, // CRI ListContainers (images in use), Status (the sandbox image)
        policy: { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 2 * 60_000, maxAgeMs: 0 },
        stateFile: path.join(rootDir, 'image-gc', 'state.json'), // last-used times survive restarts
        ...testOnly, // tests only: a fake clock and statfs; omit on a node
      });

      const result = await imageGc.garbageCollect(); // { usagePercent, bytesToFree, freedBytes, removed: [{ id, repoTags, sizeBytes, reason }] }
      const running = imageGc.run(signal); // now, then every 5 minutes until the signal aborts
      await imageGc.deleteUnusedImages(); // for eviction: every unused image past minAge, least recently used first
      // README:end

      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      // the old image was first seen 3 min ago (saved by the first manager): removed; the sandbox image kept
      expect(result.usagePercent).toBe(85);
      expect(result.removed.map((r) => r.repoTags)).toEqual([['registry.test/old:1']]);
      expect(cri.image.hasImage('registry.test/pause:3.9')).toBe(true);
      controller.abort();
      await running;
    } finally {
      await fs.rm(rootDir, { recursive: true, force: true });
    }
  });
});
