import { durationMs, formatDuration, isDuration, normalizeDuration, parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

describe('parseDuration (Go time.ParseDuration)', () => {
  it.each([
    ['1m30s', 90_000],
    ['300ms', 300],
    ['2h45m', 9_900_000],
    ['1m0s', 60_000],
    ['0', 0],
    ['0s', 0],
    ['1.5s', 1500],
    ['.5s', 500],
    ['1500us', 1.5],
    ['1500µs', 1.5],
    ['2000000ns', 2],
    ['-1m', -60_000],
    ['+4h', 14_400_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(durationMs(text)).toBe(ms);
  });

  it.each(['1x', '', '5', 'm', '1.s.', '1 m', '--1s', 's1'])('rejects %j with INVALID_DURATION', (text) => {
    expect(isDuration(text)).toBe(false);
    expect(() => parseDuration(text)).toThrow(ConfigError);
    try {
      parseDuration(text);
    } catch (err) {
      expect((err as ConfigError).code).toBe('INVALID_DURATION');
      expect((err as ConfigError).message).toContain(JSON.stringify(text));
    }
  });
});

describe('formatDuration (Go Duration.String)', () => {
  it.each([
    [0, '0s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [300, '300ms'],
    [1500, '1.5s'],
    [1.5, '1.5ms'],
    [0.0015, '1.5µs'],
    [0.0001, '100ns'],
    [9_900_000, '2h45m0s'],
    [14_400_000, '4h0m0s'],
    [-60_000, '-1m0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('round-trips through parseDuration', () => {
    for (const ms of [1, 20_000, 123_456.789, 86_400_000 * 3]) expect(parseDuration(formatDuration(ms))).toBeCloseTo(ms, 6);
  });

  it('normalizes a written duration to the canonical form', () => {
    expect(normalizeDuration('2m')).toBe('2m0s');
    expect(normalizeDuration('90s')).toBe('1m30s');
    expect(normalizeDuration('0')).toBe('0s');
  });
});
