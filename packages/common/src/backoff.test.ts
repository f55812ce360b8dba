import { createBackoff } from './backoff.js';
import { FakeClock } from './testing/fake-clock.js';

describe('createBackoff', () => {
  it('doubles from the initial delay up to the maximum, like CrashLoopBackOff', () => {
    const clock = new FakeClock();
    const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
    const delays = Array.from({ length: 7 }, () => backoff.next('c'));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });

  it('reports the window as open until the delay has passed', async () => {
    const clock = new FakeClock();
    const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
    const failedAt = clock.now();
    backoff.next('c');
    expect(backoff.isInBackoffSince('c', failedAt)).toBe(true);
    await clock.advance(9_999);
    expect(backoff.isInBackoffSince('c', failedAt)).toBe(true);
    await clock.advance(1);
    expect(backoff.isInBackoffSince('c', failedAt)).toBe(false);
  });

  it('starts over after 2 × max without failures (10 minutes for 5 minute max)', async () => {
    const clock = new FakeClock();
    const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });
    backoff.next('c');
    backoff.next('c');
    expect(backoff.get('c')).toBe(20_000);
    await clock.advance(600_001);
    expect(backoff.get('c')).toBe(0);
    expect(backoff.next('c')).toBe(10_000);
  });
});
