import { LineDecoder } from './ndjson.js';

const text = (lines: Buffer[]): string[] => lines.map((l) => l.toString('utf8'));

describe('LineDecoder (watch framing)', () => {
  it('splits many lines in one chunk and one line over many chunks', () => {
    const d = new LineDecoder(1024);
    expect(text(d.push(Buffer.from('{"a":1}\n{"b":2}\n{"c"')))).toEqual(['{"a":1}', '{"b":2}']);
    expect(text(d.push(Buffer.from(':')))).toEqual([]);
    expect(text(d.push(Buffer.from('3}\n')))).toEqual(['{"c":3}']);
    expect(d.end()).toBeUndefined();
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const d = new LineDecoder(1024);
    const bytes = Buffer.from('{"msg":"héllo ✓"}\n');
    const cut = bytes.indexOf(0xa9); // inside "é"
    expect(d.push(bytes.subarray(0, cut))).toEqual([]);
    expect(text(d.push(bytes.subarray(cut)))).toEqual(['{"msg":"héllo ✓"}']);
  });

  it('drops empty lines and returns an unterminated last line at the end', () => {
    const d = new LineDecoder(1024);
    expect(text(d.push(Buffer.from('\n\r\n{"x":1}\n\n{"y"')))).toEqual(['{"x":1}']);
    expect(d.end()?.toString()).toBe('{"y"');
  });

  it('refuses a line longer than the limit', () => {
    const d = new LineDecoder(8);
    d.push(Buffer.from('12345'));
    expect(() => d.push(Buffer.from('67890'))).toThrow('longer than 8 bytes');
  });

  // Found by the line decoder fuzzer: a line over the limit was refused when it spanned chunks and
  // accepted when it came whole in one chunk, so the same stream cut differently gave another result.
  it('refuses a line longer than the limit that arrives whole in one chunk', () => {
    expect(() => new LineDecoder(8).push(Buffer.from('123456789\n'))).toThrow('watch event longer than 8 bytes');
    expect(() => new LineDecoder(8).push(Buffer.from('{"x":1}\n123456789\n'))).toThrow('watch event longer than 8 bytes');
    const d = new LineDecoder(8);
    d.push(Buffer.from('1234'));
    expect(() => d.push(Buffer.from('56789\n'))).toThrow('watch event longer than 8 bytes');
    expect(text(new LineDecoder(8).push(Buffer.from('12345678\n')))).toEqual(['12345678']);
  });
});
