import { durationMs, formatDuration, isDuration, normalizeDuration, parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

// The grammar itself is tested with @kubelet-ts/common's parseGoDuration; these pin the config API on it.
describe('parseDuration (Go time.ParseDuration)', () => {
  it.each([
    ['1m30s', 90_000],
    ['0', 0],
    ['1500us', 1.5],
    ['-1m', -60_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(durationMs(text)).toBe(ms);
    expect(isDuration(text)).toBe(true);
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
    [90_000, '1m30s'],
    [0.0015, '1.5µs'],
    [14_400_000, '4h0m0s'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('refuses a number that is no duration with INVALID_DURATION', () => {
    expect(() => formatDuration(Number.NaN)).toThrow(expect.objectContaining({ name: 'ConfigError', code: 'INVALID_DURATION' }));
  });

  it('normalizes a written duration to the canonical form', () => {
    expect(normalizeDuration('2m')).toBe('2m0s');
    expect(normalizeDuration('90s')).toBe('1m30s');
    expect(normalizeDuration('0')).toBe('0s');
    expect(() => normalizeDuration('2x')).toThrow(ConfigError);
  });
});
