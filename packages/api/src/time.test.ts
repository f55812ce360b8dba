import { formatMicroTime, formatRfc3339Nano, formatTime } from './index.js';

const at = Date.UTC(2026, 0, 1, 0, 0, 10, 123);

describe('wire time formats', () => {
  it('writes metav1.Time at second precision, truncating', () => {
    expect(formatTime(at)).toBe('2026-01-01T00:00:10Z');
    expect(formatTime(at + 900)).toBe('2026-01-01T00:00:11Z');
  });

  it('writes metav1.MicroTime with exactly six fractional digits', () => {
    expect(formatMicroTime(at)).toBe('2026-01-01T00:00:10.123000Z');
    expect(formatMicroTime(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00.000000Z');
    expect(formatMicroTime(at)).toMatch(/\.\d{6}Z$/);
  });

  it('writes RFC3339Nano with trailing zeros trimmed', () => {
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 1, 0, 0, 0, 120))).toBe('2026-01-01T00:00:00.12Z');
    expect(formatRfc3339Nano(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00Z');
  });
});
