import { CriError } from './errors.js';
import { formatCriLogLine, formatTimestampFixed, parseCriLogLine, parseTimestampNs } from './cri-log.js';

describe('parseCriLogLine', () => {
  it('parses a full stdout line and a partial stderr line', () => {
    const full = parseCriLogLine('2016-10-06T00:17:09.669794202Z stdout F log content 1');
    expect(full).toMatchObject({ timestamp: '2016-10-06T00:17:09.669794202Z', stream: 'stdout', partial: false });
    expect(full.content.toString()).toBe('log content 1');
    expect(full.timeNs).toBe(BigInt(Date.UTC(2016, 9, 6, 0, 17, 9, 669)) * 1_000_000n + 794_202n);
    const partial = parseCriLogLine(Buffer.from('2016-10-06T00:17:09.669794203Z stderr P:x log content 2\n'));
    expect(partial).toMatchObject({ stream: 'stderr', partial: true });
    expect(partial.content.toString()).toBe('log content 2');
  });

  it('keeps spaces in the content and accepts an empty F line', () => {
    expect(parseCriLogLine('2016-10-06T00:17:09Z stdout F  a  b ').content.toString()).toBe(' a  b ');
    expect(parseCriLogLine('2016-10-06T00:17:09Z stdout F').content.length).toBe(0);
    expect(parseCriLogLine('2016-10-06T00:17:09Z stdout F ').content.length).toBe(0);
  });

  it.each([
    ['no-spaces-at-all', 'timestamp is not found'],
    ['yesterday stdout F x', 'unexpected timestamp format'],
    ['2016-10-06T00:17:09Z', 'timestamp is not found'],
    ['2016-10-06T00:17:09Z stdout', 'stream type is not found'],
    ['2016-10-06T00:17:09Z stdin F x', 'unexpected stream type'],
  ])('rejects %j (%s) with code INVALID_ARGUMENT', (line, reason) => {
    try {
      parseCriLogLine(line);
      throw new Error('parsed');
    } catch (err) {
      expect(CriError.is(err, 'INVALID_ARGUMENT')).toBe(true);
      expect((err as Error).message).toContain(reason);
    }
  });

  it('round-trips through formatCriLogLine', () => {
    const line = formatCriLogLine({ timestamp: '2026-01-01T00:00:00.5Z', stream: 'stderr', partial: true, content: 'abc' });
    expect(line.toString()).toBe('2026-01-01T00:00:00.5Z stderr P abc\n');
    expect(parseCriLogLine(line.subarray(0, line.length - 1))).toMatchObject({ partial: true, stream: 'stderr' });
  });
});

describe('timestamps', () => {
  it('parses offsets and fractions to the same instant', () => {
    expect(parseTimestampNs('2026-01-01T01:00:00.1+01:00')).toBe(parseTimestampNs('2026-01-01T00:00:00.100000000Z'));
    expect(parseTimestampNs('2026-01-01T00:00:00-00:30')).toBe(BigInt(Date.UTC(2026, 0, 1, 0, 30)) * 1_000_000n);
    expect(parseTimestampNs('2026-01-01 00:00:00Z')).toBeUndefined();
  });

  it('formats with nine fraction digits in the zone written (RFC3339NanoFixed)', () => {
    expect(formatTimestampFixed('2026-01-01T00:00:00.1Z')).toBe('2026-01-01T00:00:00.100000000Z');
    expect(formatTimestampFixed('2026-01-01T00:00:00+02:00')).toBe('2026-01-01T00:00:00.000000000+02:00');
  });
});
