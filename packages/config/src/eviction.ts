import { ConfigError } from './errors.js';
import { isValidQuantity, parseQuantity } from '@kubelet-ts/api';
import { durationError } from './duration.js';

/** The eviction signals the kubelet knows (pkg/kubelet/eviction/api/types.go). */
export const EVICTION_SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'pid.available',
] as const;

export type EvictionSignal = (typeof EVICTION_SIGNALS)[number];

/** Linux defaults for evictionHard (pkg/kubelet/eviction/defaults_linux.go). */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
});

const SIGNAL_SET: ReadonlySet<string> = new Set(EVICTION_SIGNALS);

/** A parsed threshold value: either a percentage of capacity or an absolute quantity. */
export type EvictionThresholdValue = { percentage: number } | { quantity: string; value: number };

export function isEvictionSignal(name: string): name is EvictionSignal {
  return SIGNAL_SET.has(name);
}

/**
 * Parses the flag form of an eviction map, `memory.available<100Mi,nodefs.available<10%`, the way the
 * kubelet's LangleSeparatedMapStringString does (pairs split on `,`, key and value on the first `<`, trimmed).
 * It checks the syntax only; {@link evictionValueError} checks signal names and values.
 * @throws ConfigError with code `INVALID_EVICTION_MAP`.
 */
export function parseEvictionMap(value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of value.split(',')) {
    if (pair === '') continue;
    const at = pair.indexOf('<');
    if (at < 0) throw new ConfigError('INVALID_EVICTION_MAP', `malformed pair ${JSON.stringify(pair)}, expect signal<value`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** Parses one threshold value: `10%` or a quantity like `100Mi`. Returns a reason string when it is invalid. */
export function parseEvictionThresholdValue(value: string): EvictionThresholdValue | string {
  if (value.endsWith('%')) {
    const text = value.slice(0, -1);
    const pct = Number(text);
    if (text.trim() === '' || !Number.isFinite(pct)) return `invalid percentage ${JSON.stringify(value)}`;
    // matches kubelet: "eviction percentage threshold must be >= 0% and <= 100%"
    if (pct < 0 || pct > 100) return `percentage ${JSON.stringify(value)} must be >= 0% and <= 100%`;
    return { percentage: pct };
  }
  if (!isValidQuantity(value)) return `invalid quantity or percentage ${JSON.stringify(value)}`;
  const parsed = parseQuantity(value);
  if (parsed < 0) return `threshold ${JSON.stringify(value)} must be positive`;
  return { quantity: value, value: parsed };
}

/** Why `signal: value` is not a valid threshold (hard, soft, minimum reclaim), or undefined. */
export function evictionValueError(signal: string, value: string): string | undefined {
  if (!isEvictionSignal(signal)) return `unsupported eviction signal ${JSON.stringify(signal)}`;
  const parsed = parseEvictionThresholdValue(value);
  return typeof parsed === 'string' ? parsed : undefined;
}

/** Why `signal: value` is not a valid soft-eviction grace period, or undefined. */
export function evictionGracePeriodError(signal: string, value: string): string | undefined {
  if (!isEvictionSignal(signal)) return `unsupported eviction signal ${JSON.stringify(signal)}`;
  const err = durationError(value);
  if (err !== undefined) return `invalid duration ${JSON.stringify(value)}`;
  if (value.startsWith('-')) return `grace period ${JSON.stringify(value)} must not be negative`;
  return undefined;
}
