import { parseQuantity } from '@kubelet-ts/api';

const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'] as const;

/**
 * How Go prints `resource.NewQuantity(n, resource.BinarySI)`: the largest power-of-1024 suffix that
 * divides the value exactly, else the plain integer (`51200Ki`, `100Mi`, `1536`, `0`).
 */
export function formatBinaryQuantity(value: number): string {
  let n = Math.trunc(value);
  if (n === 0 || Math.abs(n) < 1024) return String(n);
  let i = 0;
  while (i < BINARY_SUFFIXES.length - 1 && n % 1024 === 0) {
    n /= 1024;
    i++;
  }
  return `${n}${BINARY_SUFFIXES[i] ?? ''}`;
}

/**
 * A resource value in base units, 0 when it is absent or does not parse: requests, limits and
 * overhead of pods the API has validated already, where a bad value must not stop eviction.
 */
export function quantityOrZero(value: string | number | undefined): number {
  if (value === undefined) return 0;
  try {
    return parseQuantity(value);
  } catch {
    return 0;
  }
}
