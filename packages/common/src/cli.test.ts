import { UsageError, parseCommandLine, runCommandLine } from './index.js';

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

describe('runCommandLine', () => {
  /** A process with arguments, collected stderr and signals the test sends. */
  function fakeProcess(args: string[]) {
    const listeners = new Map<string, () => void>();
    const proc = {
      argv: ['node', 'tool.js', ...args],
      env: { TOOL_MODE: 'test' },
      stderrText: '',
      stderr: { write: (text: string) => (proc.stderrText += text) },
      once: (event: string, listener: () => void) => listeners.set(event, listener),
      exitCode: undefined as number | string | null | undefined,
      send: (event: string) => listeners.get(event)?.(),
      listening: () => [...listeners.keys()],
    };
    return proc;
  }

  it('parses the arguments after the script with the environment, runs the command and sets its exit status', async () => {
    const proc = fakeProcess(['--x', 'y']);
    const parse = jest.fn((argv: string[], env: NodeJS.ProcessEnv) => ({ argv, mode: env['TOOL_MODE'] }));
    await runCommandLine({ program: 'tool', parse, run: async (args) => (args.argv.length === 2 && args.mode === 'test' ? 3 : 0) }, proc);
    expect(parse).toHaveBeenCalledWith(['--x', 'y'], { TOOL_MODE: 'test' });
    expect(proc.exitCode).toBe(3);
    expect(proc.stderrText).toBe('');
  });

  it('answers 2 for a usage error without running the command', async () => {
    const proc = fakeProcess(['--bogus']);
    const run = jest.fn(async () => 0);
    const parse = (): never => {
      throw new UsageError('USAGE', 'unknown flag --bogus');
    };
    await runCommandLine({ program: 'tool', parse, run }, proc);
    expect(run).not.toHaveBeenCalled();
    expect(proc.exitCode).toBe(2);
    expect(proc.stderrText).toBe('tool: unknown flag --bogus\nRun "tool --help" for usage.\n');
  });

  it('aborts the command on the chosen signals (SIGINT by default) and through abort()', async () => {
    const proc = fakeProcess([]);
    await runCommandLine(
      {
        program: 'tool',
        parse: () => ({}),
        run: async (_args, { signal }) => {
          proc.send('SIGTERM');
          expect(signal.aborted).toBe(false);
          proc.send('SIGINT');
          return signal.aborted ? 130 : 0;
        },
      },
      proc,
    );
    expect(proc.exitCode).toBe(130);
    const both = fakeProcess([]);
    let aborted = false;
    await runCommandLine(
      {
        program: 'tool',
        parse: () => ({}),
        abortOn: ['SIGINT', 'SIGTERM'],
        run: async (_args, { signal, abort }) => {
          expect(both.listening()).toEqual(['SIGINT', 'SIGTERM']);
          both.send('SIGTERM');
          aborted = signal.aborted;
          abort();
          return 0;
        },
      },
      both,
    );
    expect(aborted).toBe(true);
  });

  it('reports a failing command as "program: message" with status 1, and anything thrown while parsing whole', async () => {
    const proc = fakeProcess([]);
    await runCommandLine({ program: 'tool', parse: () => ({}), run: () => Promise.reject(new Error('connection refused')) }, proc);
    expect(proc.exitCode).toBe(1);
    expect(proc.stderrText).toBe('tool: connection refused\n');
    const buggy = fakeProcess([]);
    const parse = (): never => {
      throw new TypeError('bug in the parser');
    };
    await runCommandLine({ program: 'tool', parse, run: async () => 0 }, buggy);
    expect(buggy.exitCode).toBe(1);
    expect(buggy.stderrText).toMatch(/^TypeError: bug in the parser\n {4}at /);
  });
});
