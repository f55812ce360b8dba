import { z } from 'zod';
import { ApiError } from './errors.js';
import type { Rational } from './internal/rational.js';
import { ceilScaled, toNumber } from './internal/rational.js';

/** A resource quantity as it appears in Kubernetes JSON: a string such as "500m" or "1Gi", or a plain number. */
export type Quantity = string | number;

/** The pattern upstream reports when a quantity does not parse (resource.ErrFormatWrong). */
export const QUANTITY_FORMAT = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const NUMBER_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/;
const EXPONENT_RE = /^[eE]([+-]?[0-9]+)$/;
// Far beyond any real resource amount; guards against "1e999999" allocating huge bigints.
const MAX_EXPONENT = 100;

function invalid(input: Quantity, why: string): ApiError {
  return new ApiError('INVALID_QUANTITY', `quantity ${JSON.stringify(input)} is invalid: ${why}`);
}

/** Parses a quantity exactly. Internal: the public API returns numbers. */
export function parseQuantityExact(input: Quantity): Rational {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) throw invalid(input, 'not a finite number');
    return parseQuantityExact(numberToPlainString(input));
  }
  if (typeof input !== 'string') throw invalid(input, 'must be a string or a number');
  const match = NUMBER_RE.exec(input);
  if (match === null) throw invalid(input, `quantities must match the regular expression '${QUANTITY_FORMAT}'`);
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
  if (whole.length === 0 && fraction.length === 0) {
    throw invalid(input, `quantities must match the regular expression '${QUANTITY_FORMAT}'`);
  }
  let n = BigInt(`${whole}${fraction}` || '0');
  let d = 10n ** BigInt(fraction.length);
  if (sign === '-') n = -n;

  const decimal = DECIMAL_SUFFIX[suffix];
  const binary = BINARY_SUFFIX[suffix];
  const exponent = EXPONENT_RE.exec(suffix);
  if (decimal !== undefined) {
    if (decimal >= 0) n *= 10n ** BigInt(decimal);
    else d *= 10n ** BigInt(-decimal);
  } else if (binary !== undefined) {
    n *= 2n ** BigInt(binary);
  } else if (exponent !== null) {
    const e = Number(exponent[1]);
    if (Math.abs(e) > MAX_EXPONENT) throw invalid(input, `exponent ${e} is out of range`);
    if (e >= 0) n *= 10n ** BigInt(e);
    else d *= 10n ** BigInt(-e);
  } else {
    throw invalid(input, `unable to parse quantity's suffix "${suffix}"`);
  }
  return { n, d };
}

function numberToPlainString(value: number): string {
  // JS prints 1e21 and 1e-7 in exponent form, which the quantity grammar also accepts ("1e+21" → "1e21").
  return String(value).replace('e+', 'e');
}

/** Parses a quantity into base units (cores for cpu, bytes for memory). Throws ApiError `INVALID_QUANTITY`. */
export function parseQuantity(input: Quantity): number {
  return toNumber(parseQuantityExact(input));
}

/** The value × 1000 as an integer, rounded up (away from zero) like upstream `Quantity.MilliValue()`. */
export function quantityMilliValue(input: Quantity): number {
  return Number(ceilScaled(parseQuantityExact(input), 3));
}

/** The value as an integer, rounded up (away from zero) like upstream `Quantity.Value()`. */
export function quantityValue(input: Quantity): number {
  return Number(ceilScaled(parseQuantityExact(input), 0));
}

export function isValidQuantity(input: unknown): input is Quantity {
  if (typeof input !== 'string' && typeof input !== 'number') return false;
  try {
    parseQuantityExact(input);
    return true;
  } catch {
    return false;
  }
}

/** zod schema for a quantity field: a string or number that parses; keeps the original form. */
export const quantitySchema = z.union([z.string(), z.number()]).refine((value) => isValidQuantity(value), {
  message: `quantities must match the regular expression '${QUANTITY_FORMAT}'`,
});
