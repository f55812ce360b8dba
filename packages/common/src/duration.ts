// Go's time.ParseDuration and Duration.String, the one copy in kubelet-ts: configuration values,
// CLI flags and upstream-identical messages ("back-off 10s restarting failed container") use it.
import { CommonError } from './errors.js';

// Go's units, in nanoseconds.
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n, // U+00B5 micro sign
  μs: 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const NS_PER_MS = 1_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;

/** Nanoseconds, or why the string is not a Go duration. Mirrors time.ParseDuration. */
function durationNs(input: string): { ns: bigint } | { error: string } {
  let s = input;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return { ns: 0n };
  if (s === '') return { error: 'empty duration' };
  let total = 0n;
  const component = /^(\d*)(?:\.(\d*))?([^\d.]+)/;
  while (s !== '') {
    const match = component.exec(s);
    if (match === null) {
      // Go: digits without a unit lack the unit; a lone '.' (or anything else) is no duration at all.
      return /^[\d.]+$/.test(s) && /\d/.test(s) ? { error: 'missing unit in duration' } : { error: 'invalid duration' };
    }
    const [whole, intPart = '', fracPart, unit = ''] = match;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) return { error: 'invalid duration' };
    const unitNs = UNIT_NS[unit];
    if (unitNs === undefined) return { error: `unknown unit "${unit}" in duration` };
    let value = BigInt(intPart === '' ? '0' : intPart) * unitNs;
    if (fracPart !== undefined && fracPart !== '') {
      // Scale the fraction exactly, truncating below a nanosecond like Go does.
      value += (BigInt(fracPart) * unitNs) / 10n ** BigInt(fracPart.length);
    }
    total += value;
    if (total > MAX_INT64) return { error: 'invalid duration (overflow)' };
    s = s.slice(whole.length);
  }
  return { ns: negative ? -total : total };
}

function parsedNs(value: string): bigint {
  const result = durationNs(value);
  if ('error' in result) throw new CommonError('INVALID_DURATION', `invalid duration ${JSON.stringify(value)}: ${result.error}`);
  return result.ns;
}

/** Why `value` is not a Go duration (`missing unit in duration`), or undefined when it is one. */
export function goDurationError(value: string): string | undefined {
  const result = durationNs(value);
  return 'error' in result ? result.error : undefined;
}

/**
 * Parses a Go duration (`1m30s`, `300ms`, `-1.5h`, `0`) into milliseconds. Sub-millisecond parts
 * are kept as a fraction: `parseGoDuration('1500us') === 1.5`.
 * @throws CommonError with code `INVALID_DURATION`.
 */
export function parseGoDuration(value: string): number {
  const ns = parsedNs(value);
  return Number(ns / NS_PER_MS) + Number(ns % NS_PER_MS) / 1e6;
}

/**
 * Formats milliseconds as Go's Duration.String does: `0s`, `500µs`, `300ms`, `1.5s`, `1m0s`, `1h30m0s`.
 * The result parses back with {@link parseGoDuration}.
 */
export function formatGoDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new CommonError('INVALID_DURATION', `cannot format duration ${ms}`);
  return formatNs(BigInt(Math.round(ms * 1e6)));
}

/** A Go duration in Go's canonical form (`2m` → `2m0s`), exactly (no rounding through milliseconds). */
export function normalizeGoDuration(value: string): string {
  return formatNs(parsedNs(value));
}

function formatNs(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const u = ns < 0n ? -ns : ns;
  if (u < 1_000_000_000n) {
    if (u < 1_000n) return `${sign}${u}ns`;
    if (u < 1_000_000n) return `${sign}${fraction(u, 3)}µs`;
    return `${sign}${fraction(u, 6)}ms`;
  }
  const hours = u / 3_600_000_000_000n;
  const minutes = (u / 60_000_000_000n) % 60n;
  const seconds = fraction(u % 60_000_000_000n, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** `value / 10^digits` printed with the fraction's trailing zeros removed, like Go's fmtFrac. */
function fraction(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const frac = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return frac === '' ? `${whole}` : `${whole}.${frac}`;
}
