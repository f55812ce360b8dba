// Go durations in configuration values. The parser and formatter are @kubelet-ts/common's; here
// they report as ConfigError INVALID_DURATION, the error of this package.
import { CommonError, formatGoDuration, goDurationError, normalizeGoDuration, parseGoDuration } from '@kubelet-ts/common';
import { ConfigError } from './errors.js';

function asConfigError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (CommonError.is(err, 'INVALID_DURATION')) throw new ConfigError('INVALID_DURATION', err.message, { cause: err });
    throw err;
  }
}

/** True when `value` is a valid Go duration string (`1m30s`, `300ms`, `2h45m`, `0`). */
export function isDuration(value: string): boolean {
  return goDurationError(value) === undefined;
}

/** Why `value` is not a Go duration, or undefined when it is one. */
export function durationError(value: string): string | undefined {
  return goDurationError(value);
}

/**
 * Parses a Go duration string (time.ParseDuration syntax) into milliseconds.
 * Sub-millisecond parts are kept as a fraction: `parseDuration('1500us') === 1.5`.
 * @throws ConfigError with code `INVALID_DURATION`.
 */
export function parseDuration(value: string): number {
  return asConfigError(() => parseGoDuration(value));
}

/** An alias of {@link parseDuration} that reads well on config fields: `durationMs(config.syncFrequency)`. */
export function durationMs(value: string): number {
  return parseDuration(value);
}

/**
 * Formats milliseconds the way Go's time.Duration.String does: `1m0s`, `1h30m0s`, `300ms`, `1.5s`, `0s`.
 * The result parses back with {@link parseDuration}.
 */
export function formatDuration(ms: number): string {
  return asConfigError(() => formatGoDuration(ms));
}

/** Re-formats a valid Go duration string in Go's canonical form (`2m` → `2m0s`). */
export function normalizeDuration(value: string): string {
  return asConfigError(() => normalizeGoDuration(value));
}
