import { LruCache } from './lru.js';

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
