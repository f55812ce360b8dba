import { ConfigError } from './errors.js';

// Go's time.ParseDuration units, in nanoseconds.
const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const NS_PER_MS = 1_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;

/** Why a Go duration string does not parse, or undefined when it does. Mirrors time.ParseDuration. */
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
      return /^[\d.]+$/.test(s) ? { error: 'missing unit in duration' } : { error: 'invalid duration' };
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

/** True when `value` is a valid Go duration string (`1m30s`, `300ms`, `2h45m`, `0`). */
export function isDuration(value: string): boolean {
  return 'ns' in durationNs(value);
}

/** Why `value` is not a Go duration, or undefined when it is one. */
export function durationError(value: string): string | undefined {
  const result = durationNs(value);
  return 'error' in result ? result.error : undefined;
}

/**
 * Parses a Go duration string (time.ParseDuration syntax) into milliseconds.
 * Sub-millisecond parts are kept as a fraction: `parseDuration('1500us') === 1.5`.
 * @throws ConfigError with code `INVALID_DURATION`.
 */
export function parseDuration(value: string): number {
  const result = durationNs(value);
  if ('error' in result) {
    throw new ConfigError('INVALID_DURATION', `invalid duration ${JSON.stringify(value)}: ${result.error}`);
  }
  return nsToMs(result.ns);
}

/** An alias of {@link parseDuration} that reads well on config fields: `durationMs(config.syncFrequency)`. */
export function durationMs(value: string): number {
  return parseDuration(value);
}

function nsToMs(ns: bigint): number {
  const whole = ns / NS_PER_MS;
  const rest = ns % NS_PER_MS;
  return Number(whole) + Number(rest) / 1e6;
}

/**
 * Formats milliseconds the way Go's time.Duration.String does: `1m0s`, `1h30m0s`, `300ms`, `1.5s`, `0s`.
 * The result parses back with {@link parseDuration}.
 */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) throw new ConfigError('INVALID_DURATION', `cannot format duration ${ms}`);
  return formatNs(BigInt(Math.round(ms * 1e6)));
}

/** Re-formats a valid Go duration string in Go's canonical form (`2m` → `2m0s`). */
export function normalizeDuration(value: string): string {
  const result = durationNs(value);
  if ('error' in result) {
    throw new ConfigError('INVALID_DURATION', `invalid duration ${JSON.stringify(value)}: ${result.error}`);
  }
  return formatNs(result.ns);
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
