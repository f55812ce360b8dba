import { forEachSubset } from './subsets.js';

describe('forEachSubset', () => {
  it('visits every non-empty subset, smallest first, in order', () => {
    const seen: string[][] = [];
    forEachSubset(['a', 'b', 'c'], (s) => seen.push(s));
    expect(seen).toEqual([['a'], ['b'], ['c'], ['a', 'b'], ['a', 'c'], ['b', 'c'], ['a', 'b', 'c']]);
  });
});
