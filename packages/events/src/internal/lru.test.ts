import { FakeClock } from '@kubelet-ts/common/testing';
import { LruCache } from './lru.js';
import { TokenBucket } from './token-bucket.js';

describe('LruCache', () => {
  it('forgets the least recently used entry past its size; get and set make an entry recent', () => {
    const cache = new LruCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    cache.set('a', 10); // an update makes it recent too
    cache.set('d', 4);
    expect([cache.get('a'), cache.get('c'), cache.get('d'), cache.size]).toEqual([10, undefined, 4, 2]);
  });
});

describe('TokenBucket', () => {
  it('starts full, refills continuously up to the burst, and never drains on a clock going back', () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(clock, 1, 2);
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
