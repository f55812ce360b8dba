import { formatRfc3339Nano } from '@kubelet-ts/api';

/** Structural equality of JSON-like values; a property set to `undefined` counts as absent. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keysA = Object.keys(ra).filter((k) => ra[k] !== undefined);
  const keysB = Object.keys(rb).filter((k) => rb[k] !== undefined);
  return keysA.length === keysB.length && keysA.every((k) => jsonEqual(ra[k], rb[k]));
}

/** Go's time.RFC3339Nano in UTC, as kubetypes.Timestamp.GetString prints (config.seen). */
export const rfc3339Nano = formatRfc3339Nano;
