import { parseCriLogLine } from '@kubelet-ts/cri-client';
import { LineSplitter, PartialLineAssembler } from './cri-log.js';

describe('PartialLineAssembler', () => {
  const rec = (stream: 'stdout' | 'stderr', tag: 'P' | 'F', content: string, second: number) =>
    parseCriLogLine(`2026-01-01T00:00:0${second}Z ${stream} ${tag} ${content}`);

  it('joins P records with their F record per stream, keeping the first timestamp', () => {
    const a = new PartialLineAssembler();
    expect(a.push(rec('stdout', 'P', 'hel', 1))).toBeUndefined();
    const err = a.push(rec('stderr', 'F', 'oops', 2));
    expect(err?.content.toString()).toBe('oops\n');
    const out = a.push(rec('stdout', 'F', 'lo', 3));
    expect(out?.content.toString()).toBe('hello\n');
    expect(out?.timestamp).toBe('2026-01-01T00:00:01Z');
  });

  it('flushes unfinished lines without a newline and caps a runaway partial line', () => {
    const a = new PartialLineAssembler(4);
    expect(a.push(rec('stdout', 'P', 'ab', 1))).toBeUndefined();
    expect(a.push(rec('stdout', 'P', 'cd', 2))?.content.toString()).toBe('abcd');
    a.push(rec('stderr', 'P', 'x', 3));
    expect(a.flush().map((e) => e.content.toString())).toEqual(['x']);
    expect(a.flush()).toEqual([]);
  });
});

describe('LineSplitter', () => {
  it('splits across chunks and keeps the rest', () => {
    const s = new LineSplitter();
    expect(s.push(Buffer.from('a\nb')).map(String)).toEqual(['a']);
    expect(s.push(Buffer.from('c\n\nd')).map(String)).toEqual(['bc', '']);
    expect(s.takeRest().toString()).toBe('d');
    expect(s.rest.length).toBe(0);
  });
});
