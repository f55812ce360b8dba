import { CommonError, formatGoDuration, goDurationError, normalizeGoDuration, parseGoDuration } from './index.js';

// Expected values are Go's own: time.ParseDuration(text) and time.Duration(ns).String().
describe('parseGoDuration (Go time.ParseDuration)', () => {
  it.each([
    ['1m30s', 90_000],
    ['300ms', 300],
    ['2h45m', 9_900_000],
    ['1m0s', 60_000],
    ['0', 0],
    ['0s', 0],
    ['1.5s', 1500],
    ['.5s', 500],
    ['5.s', 5000],
    ['1500us', 1.5],
    ['1500µs', 1.5], // micro sign
    ['1500μs', 1.5], // Greek mu
    ['2000000ns', 2],
    ['1h30m', 5_400_000],
    ['-1m', -60_000],
    ['+4h', 14_400_000],
    ['1.0000000001s', 1000], // below a nanosecond is truncated
  ])('%s is %d ms', (text, ms) => {
    expect(parseGoDuration(text)).toBe(ms);
    expect(goDurationError(text)).toBeUndefined();
  });

  it.each([
    ['', 'empty duration'],
    ['5', 'missing unit in duration'],
    ['1x', 'unknown unit "x" in duration'],
    ['5d', 'unknown unit "d" in duration'],
    ['m', 'invalid duration'],
    ['1.s.', 'invalid duration'],
    ['1 m', 'unknown unit " m" in duration'],
    ['1.', 'missing unit in duration'],
    ['--1s', 'invalid duration'],
    ['s1', 'invalid duration'],
    ['9223372037s', 'invalid duration (overflow)'],
  ])('rejects %j: %s', (text, why) => {
    expect(goDurationError(text)).toBe(why);
    expect(() => parseGoDuration(text)).toThrow(expect.objectContaining({ name: 'CommonError', code: 'INVALID_DURATION' }));
    expect(() => parseGoDuration(text)).toThrow(`invalid duration ${JSON.stringify(text)}: ${why}`);
  });
});

describe('formatGoDuration (Go Duration.String)', () => {
  it.each([
    [0, '0s'],
    [0.0001, '100ns'],
    [0.0015, '1.5µs'],
    // Sub-millisecond values: the former copies in runtime-manager and pod-lifecycle wrote "0.5ms".
    [0.5, '500µs'],
    [1.5, '1.5ms'],
    [300, '300ms'],
    [500, '500ms'],
    [1500, '1.5s'],
    [10_000, '10s'],
    [60_000, '1m0s'],
    [80_000, '1m20s'],
    [90_000, '1m30s'],
    [180_250, '3m0.25s'],
    [200_001, '3m20.001s'],
    [300_000, '5m0s'],
    [3_600_000, '1h0m0s'],
    [3_723_000, '1h2m3s'],
    [9_900_000, '2h45m0s'],
    [-60_000, '-1m0s'],
    [-0.5, '-500µs'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it('round-trips through parseGoDuration', () => {
    for (const ms of [0.000001, 0.5, 1, 20_000, 123_456.789, 86_400_000 * 3, -42.5]) {
      expect(parseGoDuration(formatGoDuration(ms))).toBeCloseTo(ms, 6);
    }
  });

  it('refuses what is not a finite number', () => {
    expect(() => formatGoDuration(Number.NaN)).toThrow(CommonError);
    expect(() => formatGoDuration(Number.POSITIVE_INFINITY)).toThrow('cannot format duration Infinity');
  });
});

describe('normalizeGoDuration', () => {
  it('writes a duration in the canonical form, exactly', () => {
    expect(normalizeGoDuration('2m')).toBe('2m0s');
    expect(normalizeGoDuration('90s')).toBe('1m30s');
    expect(normalizeGoDuration('0')).toBe('0s');
    expect(normalizeGoDuration('1500us')).toBe('1.5ms');
    expect(normalizeGoDuration('2562047h47m16.854775807s')).toBe('2562047h47m16.854775807s');
    expect(() => normalizeGoDuration('1x')).toThrow(CommonError);
  });
});
