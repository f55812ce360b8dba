import type { Quantity } from '@kubelet-ts/api';
import { quantityValue } from '@kubelet-ts/api';

/** Go resource.Format: how a Quantity prints, taken from the suffix it was parsed with. */
export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

/** A memory amount (whole bytes) with the format Go's Quantity would print it in. */
export interface GoQuantity {
  value: bigint;
  format: QuantityFormat;
}

const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const DECIMAL_SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];

/** Parses a quantity as resource.ParseQuantity does for memory: its bytes (rounded up, as Value()) and its format. */
export function goQuantity(input: Quantity): GoQuantity {
  const value = BigInt(quantityValue(input));
  if (typeof input === 'number') return { value, format: 'DecimalSI' };
  const suffix = /[^0-9.+-].*$/.exec(input.trim())?.[0] ?? '';
  const format = /^[KMGTPE]i$/.test(suffix) ? 'BinarySI' : /^[eE][+-]?[0-9]+$/.test(suffix) ? 'DecimalExponent' : 'DecimalSI';
  return { value, format };
}

/** Quantity.Add: a zero receiver takes the addend's format, a non-zero one keeps its own. */
export function addGoQuantity(sum: GoQuantity, addend: GoQuantity): GoQuantity {
  return { value: sum.value + addend.value, format: sum.value === 0n ? addend.format : sum.format };
}

/** Quantity.String() of a whole amount (upstream CanonicalizeBytes): `1Gi`, `1500k`, `100`, `0`. */
export function formatGoQuantity(q: GoQuantity): string {
  if (q.value === 0n) return '0';
  const negative = q.value < 0n;
  let amount = negative ? -q.value : q.value;
  const sign = negative ? '-' : '';
  // Upstream prints BinarySI below 1024 as DecimalSI "to avoid confusion".
  if (q.format === 'BinarySI' && amount >= 1024n) {
    let exponent = 0;
    while (amount % 1024n === 0n && exponent < BINARY_SUFFIXES.length - 1) {
      amount /= 1024n;
      exponent += 1;
    }
    return `${sign}${amount}${BINARY_SUFFIXES[exponent]}`;
  }
  let exponent = 0;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent += 1;
  }
  // The exponent a multiple of 3: the digits take back what is left over.
  amount *= 10n ** BigInt(exponent % 3);
  exponent -= exponent % 3;
  if (q.format === 'DecimalExponent') return `${sign}${amount}${exponent === 0 ? '' : `e${exponent}`}`;
  const suffix = DECIMAL_SUFFIXES[exponent / 3];
  return suffix === undefined ? `${sign}${amount}e${exponent}` : `${sign}${amount}${suffix}`;
}
