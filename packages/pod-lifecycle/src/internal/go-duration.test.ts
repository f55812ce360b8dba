import { formatGoDuration } from './go-duration.js';

describe('formatGoDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1500, '1.5s'],
    [180_000, '3m0s'],
    [180_250, '3m0.25s'],
    [3_723_000, '1h2m3s'],
    [200_001, '3m20.001s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
