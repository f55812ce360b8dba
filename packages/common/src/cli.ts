import { UsageError } from './errors.js';

/**
 * Runs a CLI's argument parser. A {@link UsageError} is reported through `report` with a pointer to
 * `--help` (`crictl-ts: unknown flag --x` then `Run "crictl-ts --help" for usage.`) and answers exit
 * status 2; any other error is thrown on.
 */
export function parseCommandLine<T>(program: string, parse: () => T, report: (text: string) => void): { ok: true; args: T } | { ok: false; exitCode: 2 } {
  try {
    return { ok: true, args: parse() };
  } catch (err) {
    if (!UsageError.is(err)) throw err;
    report(`${program}: ${err.message}\nRun "${program} --help" for usage.`);
    return { ok: false, exitCode: 2 };
  }
}
