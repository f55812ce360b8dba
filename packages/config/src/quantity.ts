import { isValidQuantity, parseQuantity as parseApiQuantity } from '@kubelet-ts/api';
import { ConfigError } from './errors.js';

/** True when `value` is a Kubernetes quantity (`100Mi`, `1.5Gi`, `200m`, `1e3`). */
export function isQuantity(value: string): boolean {
  return isValidQuantity(value);
}

/**
 * The numeric value of a Kubernetes quantity in base units (bytes, cores): `parseQuantity('100Mi') === 104857600`,
 * `parseQuantity('250m') === 0.25`. Precision is that of a JS number (the parsing itself is @kubelet-ts/api's, exact).
 * @throws ConfigError with code `INVALID_QUANTITY`.
 */
export function parseQuantity(value: string): number {
  try {
    return parseApiQuantity(value);
  } catch (err) {
    throw new ConfigError('INVALID_QUANTITY', `invalid quantity ${JSON.stringify(value)}`, { cause: err });
  }
}
