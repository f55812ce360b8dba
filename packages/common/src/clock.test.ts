import { jitter } from './clock.js';
import { FakeClock } from './testing/fake-clock.js';

describe('FakeClock', () => {
  it('fires timers in time order and repeats intervals', async () => {
    const clock = new FakeClock(0);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b@20'), 20);
    clock.setTimeout(() => fired.push('a@10'), 10);
    const interval = clock.setInterval(() => fired.push(`i@${clock.now()}`), 15);
    await clock.advance(31);
    clock.clearInterval(interval);
    await clock.advance(100);
    expect(fired).toEqual(['a@10', 'i@15', 'b@20', 'i@30']);
  });

  it('resolves sleep only when time is advanced, and rejects on abort', async () => {
    const clock = new FakeClock(0);
    let done = false;
    const sleeping = clock.sleep(1000).then(() => (done = true));
    await clock.advance(999);
    expect(done).toBe(false);
    await clock.advance(1);
    await sleeping;
    expect(done).toBe(true);
    const controller = new AbortController();
    const aborted = clock.sleep(1000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('jitter', () => {
  it('stays within [base, base × (1 + factor))', () => {
    expect(jitter(1000, 0.5, () => 0)).toBe(1000);
    expect(jitter(1000, 0.5, () => 0.999)).toBeCloseTo(1499.5);
  });
});
