import type { ImageGC } from '../image-gc.js';
import { FakeImageGC } from './index.js';

describe('FakeImageGC', () => {
  it('records calls, answers with the scripted result, fails on demand, and works unbound', async () => {
    const fake = new FakeImageGC();
    fake.result = { bytesToFree: 40, freedBytes: 42, removed: [{ id: 'sha256:1', repoTags: ['a:1'], sizeBytes: 42, reason: 'space' }] };
    const gc: ImageGC = fake;
    const { deleteUnusedImages, garbageCollect } = gc;
    await expect(deleteUnusedImages()).resolves.toBeUndefined();
    fake.failNext('garbageCollect', new Error('disk gone'));
    await expect(garbageCollect()).rejects.toThrow('disk gone');
    await expect(garbageCollect()).resolves.toMatchObject({ removed: [{ id: 'sha256:1' }] });
    await gc.detectImages();
    expect(fake.calls.map((c) => c.method)).toEqual(['deleteUnusedImages', 'garbageCollect', 'garbageCollect', 'detectImages']);
    expect(fake.count('garbageCollect')).toBe(2);
    // the result handed out is a copy
    (await garbageCollect()).removed.length = 0;
    expect(fake.result.removed).toHaveLength(1);
  });

  it('run resolves when its signal aborts', async () => {
    const fake = new FakeImageGC();
    const controller = new AbortController();
    const running = fake.run(controller.signal);
    expect(fake.count('run')).toBe(1);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });

  it('deleteUnusedImages fits a reclaim function type returning Promise<void>', async () => {
    const fake = new FakeImageGC();
    const reclaim: () => Promise<void> = fake.deleteUnusedImages;
    await reclaim();
    expect(fake.count('deleteUnusedImages')).toBe(1);
  });
});
