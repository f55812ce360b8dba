import { ConfigError } from './errors.js';

// Kubernetes resource.Quantity syntax: <signedNumber><suffix>, suffix binary (Ki..Ei),
// decimal (n u m "" k M G T P E) or a decimal exponent (e3, E-2).
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;

const MULTIPLIER: Readonly<Record<string, number>> = {
  '': 1,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** True when `value` is a Kubernetes quantity (`100Mi`, `1.5Gi`, `200m`, `1e3`). */
export function isQuantity(value: string): boolean {
  return QUANTITY.test(value);
}

/**
 * The numeric value of a Kubernetes quantity in base units (bytes, cores): `parseQuantity('100Mi') === 104857600`,
 * `parseQuantity('250m') === 0.25`. Precision is that of a JS number.
 * @throws ConfigError with code `INVALID_QUANTITY`.
 */
export function parseQuantity(value: string): number {
  const match = QUANTITY.exec(value);
  if (match === null) throw new ConfigError('INVALID_QUANTITY', `invalid quantity ${JSON.stringify(value)}`);
  const [, number = '0', suffix = ''] = match;
  const base = Number(number);
  if (suffix.startsWith('e') || suffix.startsWith('E')) return base * 10 ** Number(suffix.slice(1));
  return base * (MULTIPLIER[suffix] ?? 1);
}
