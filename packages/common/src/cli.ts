import { inspect } from 'node:util';
import { UsageError } from './errors.js';

/**
 * Runs a CLI's argument parser. A {@link UsageError} is reported through `report` with a pointer to
 * `--help` (`crictl-ts: unknown flag --x` then `Run "crictl-ts --help" for usage.`) and answers exit
 * status 2; any other error is thrown on.
 */
export function parseCommandLine<T>(
  program: string,
  parse: () => T,
  report: (text: string) => void,
): { ok: true; args: T } | { ok: false; exitCode: 2 } {
  try {
    return { ok: true, args: parse() };
  } catch (err) {
    if (!UsageError.is(err)) throw err;
    report(`${program}: ${err.message}\nRun "${program} --help" for usage.`);
    return { ok: false, exitCode: 2 };
  }
}

/** The parts of `process` a command line uses (tests pass a fake). */
export interface CommandLineProcess {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stderr: { write(text: string): unknown };
  once(event: NodeJS.Signals, listener: () => void): unknown;
  exitCode?: number | string | null | undefined;
}

/** What the command can do besides its work. */
export interface CommandContext {
  /** Aborted by the `abortOn` signals, or by `abort()`. */
  readonly signal: AbortSignal;
  /** Ends the command early (a closed output pipe, for example). */
  abort(): void;
}

export interface CommandLine<T> {
  /** The program's name, which prefixes its messages (`crictl-ts: …`). */
  program: string;
  /** Parses the arguments after the script and the environment; throws a {@link UsageError} for a bad command line. */
  parse(argv: string[], env: NodeJS.ProcessEnv): T;
  /** Does the work; resolves with the exit status. */
  run(args: T, context: CommandContext): Promise<number>;
  /** The signals that abort `context.signal`; default SIGINT. */
  abortOn?: readonly NodeJS.Signals[];
}

/**
 * A CLI's main: parses the command line ({@link parseCommandLine}: status 2 for a usage error),
 * runs the command with a signal that `abortOn` aborts, reports an error of the command as
 * `program: message` with status 1, and sets the process's exit code. Never rejects: anything
 * else thrown is written out whole with status 1.
 */
export async function runCommandLine<T>(cli: CommandLine<T>, proc: CommandLineProcess = process): Promise<void> {
  try {
    proc.exitCode = await commandStatus(cli, proc);
  } catch (err) {
    proc.stderr.write(`${inspect(err)}\n`);
    proc.exitCode = 1;
  }
}

async function commandStatus<T>(cli: CommandLine<T>, proc: CommandLineProcess): Promise<number> {
  const report = (text: string): void => void proc.stderr.write(`${text}\n`);
  const parsed = parseCommandLine(cli.program, () => cli.parse(proc.argv.slice(2), proc.env), report);
  if (!parsed.ok) return parsed.exitCode;
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  for (const name of cli.abortOn ?? ['SIGINT']) proc.once(name, abort);
  try {
    return await cli.run(parsed.args, { signal: controller.signal, abort });
  } catch (err) {
    report(`${cli.program}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
