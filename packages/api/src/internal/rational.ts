/** An exact rational number n/d with d > 0, used so quantity arithmetic never drifts like floats do. */
export interface Rational {
  n: bigint;
  d: bigint;
}

export const ZERO: Rational = { n: 0n, d: 1n };

export function add(a: Rational, b: Rational): Rational {
  if (a.d === b.d) return { n: a.n + b.n, d: a.d };
  return { n: a.n * b.d + b.n * a.d, d: a.d * b.d };
}

/** -1, 0 or 1 as a < b, a == b, a > b. */
export function cmp(a: Rational, b: Rational): number {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Scales by 10^scale and rounds away from zero to an integer (upstream Quantity rounds "up"). */
export function ceilScaled(value: Rational, scale: number): bigint {
  const n = scale >= 0 ? value.n * 10n ** BigInt(scale) : value.n;
  const d = scale >= 0 ? value.d : value.d * 10n ** BigInt(-scale);
  const q = n / d;
  if (q * d === n) return q;
  return n > 0n ? q + 1n : q - 1n;
}

export function toNumber(value: Rational): number {
  if (value.d === 1n) return Number(value.n);
  // Keep precision for large numerators by dividing in bigint first.
  const whole = value.n / value.d;
  const rest = value.n - whole * value.d;
  return Number(whole) + Number(rest) / Number(value.d);
}
