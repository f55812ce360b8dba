import { FakeClock } from '@kubelet-ts/common/testing';
import { syncLoopHealthz } from './healthz.js';

describe('syncLoopHealthz', () => {
  it('passes before the first loop and fails once the loop is older than max(2 × resync, 5m)', async () => {
    const clock = new FakeClock();
    const loop: { entered?: number } = {};
    const check = syncLoopHealthz({ clock, resyncIntervalMs: 60_000, latestLoopEntry: () => loop.entered });
    expect(check.name).toBe('syncloop');
    expect(() => check.check()).not.toThrow();
    loop.entered = clock.now();
    await clock.advance(5 * 60_000);
    expect(() => check.check()).not.toThrow();
    await clock.advance(1);
    expect(() => check.check()).toThrow('sync loop took longer than expected: last entered 300s ago (limit 300s)');
  });

  it('uses 2 × resync interval when that is longer than 5 minutes', async () => {
    const clock = new FakeClock();
    const entered = clock.now();
    const check = syncLoopHealthz({ clock, resyncIntervalMs: 10 * 60_000, latestLoopEntry: () => entered });
    await clock.advance(19 * 60_000);
    expect(() => check.check()).not.toThrow();
    await clock.advance(60_001);
    expect(() => check.check()).toThrow(/limit 1200s/);
  });
});
