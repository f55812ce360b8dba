import { forEachBounded } from './concurrency.js';

describe('forEachBounded', () => {
  it('runs every item, at most `limit` at once, starting them in order', async () => {
    const started: number[] = [];
    let inFlight = 0;
    let most = 0;
    await forEachBounded([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('runs one at a time for a limit below 1, and nothing for no items', async () => {
    let most = 0;
    let inFlight = 0;
    await forEachBounded([1, 2, 3], 0, async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight--;
    });
    expect(most).toBe(1);
    await expect(forEachBounded([], 4, async () => undefined)).resolves.toBeUndefined();
  });
});
