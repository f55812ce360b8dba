import { createTokenBucket } from './token-bucket.js';
import { FakeClock } from './testing/index.js';

describe('token bucket', () => {
  it('lets a burst through at once, then one request per 1/qps', async () => {
    const clock = new FakeClock();
    const limiter = createTokenBucket({ qps: 5, burst: 2, clock });
    const done: number[] = [];
    const waits = [0, 1, 2, 3].map((i) => limiter.wait().then((ms) => done.push(i) && ms));
    await clock.advance(0);
    expect(done).toEqual([0, 1]);
    await clock.advance(199);
    expect(done).toEqual([0, 1]);
    await clock.advance(1);
    expect(done).toEqual([0, 1, 2]);
    await clock.advance(200);
    expect(done).toEqual([0, 1, 2, 3]);
    expect(await Promise.all(waits)).toEqual([0, 0, 200, 400]);
  });

  it('refills up to the burst while idle', async () => {
    const clock = new FakeClock();
    const limiter = createTokenBucket({ qps: 10, burst: 3, clock });
    for (let i = 0; i < 3; i++) expect(await limiter.wait()).toBe(0);
    await clock.advance(10_000);
    const waited = await Promise.all([limiter.wait(), limiter.wait(), limiter.wait()]);
    expect(waited).toEqual([0, 0, 0]);
    const fourth = limiter.wait();
    await clock.advance(100);
    expect(await fourth).toBe(100);
  });

  it('is unlimited with qps <= 0 (the heartbeat client)', async () => {
    const clock = new FakeClock();
    const limiter = createTokenBucket({ qps: -1, burst: 0, clock });
    const waited = await Promise.all(Array.from({ length: 1000 }, () => limiter.wait()));
    expect(waited.every((ms) => ms === 0)).toBe(true);
  });

  it('gives the token back when a wait is aborted', async () => {
    const clock = new FakeClock();
    const limiter = createTokenBucket({ qps: 1, burst: 1, clock });
    await limiter.wait();
    const controller = new AbortController();
    const aborted = limiter.wait(controller.signal);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    // The aborted request's reservation was returned: the next one waits one interval, not two.
    const next = limiter.wait();
    await clock.advance(1000);
    expect(await next).toBe(1000);
  });

  it('starts full, refills continuously up to the burst, and never drains on a clock going back', () => {
    const clock = new FakeClock(0);
    const bucket = createTokenBucket({ qps: 1, burst: 2, clock });
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, false]);
    clock.setNow(500);
    expect(bucket.tryAccept()).toBe(false);
    clock.setNow(1000);
    expect(bucket.tryAccept()).toBe(true);
    clock.setNow(60_000); // a long pause refills only `burst` tokens
    expect([bucket.tryAccept(), bucket.tryAccept(), bucket.tryAccept()]).toEqual([true, true, false]);
    clock.setNow(0);
    expect(bucket.tryAccept()).toBe(false);
    clock.setNow(61_000);
    expect(bucket.tryAccept()).toBe(true);
  });
});
