import { UsageError, parseCommandLine } from './index.js';

describe('parseCommandLine', () => {
  it('answers the parsed arguments', () => {
    const report = jest.fn();
    expect(parseCommandLine('tool', () => ({ verbose: true }), report)).toEqual({ ok: true, args: { verbose: true } });
    expect(report).not.toHaveBeenCalled();
  });

  it('reports a usage error with a pointer to --help and answers exit status 2', () => {
    const lines: string[] = [];
    const result = parseCommandLine(
      'crictl-ts',
      () => {
        throw new UsageError('USAGE', 'unknown flag --bogus');
      },
      (text) => lines.push(text),
    );
    expect(result).toEqual({ ok: false, exitCode: 2 });
    expect(lines).toEqual(['crictl-ts: unknown flag --bogus\nRun "crictl-ts --help" for usage.']);
  });

  it('throws any other error on', () => {
    expect(() =>
      parseCommandLine(
        'tool',
        () => {
          throw new Error('bug');
        },
        () => undefined,
      ),
    ).toThrow('bug');
  });
});
