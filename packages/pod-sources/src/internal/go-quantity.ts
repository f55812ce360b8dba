import type { GoValue } from '@kubelet-ts/common';

/**
 * A resource.Quantity as the upstream decoder leaves it in memory, printed the way go-spew sees
 * it: `{i:{value scale} d:{Dec} s Format}`. This follows ParseQuantity (int64 fast path with
 * its "canonical string" cache, else an inf.Dec rounded up to nano scale) and, for values of
 * resource lists, SetDefaults_ResourceList's RoundUp to milli scale. Static pod UIDs hash this.
 */
export function quantityGoValue(text: string, roundUpToMilli: boolean): GoValue {
  const q = parseGoQuantity(text.trim());
  if (roundUpToMilli) roundUp(q, -3);
  return {
    kind: 'struct',
    type: 'resource.Quantity',
    fields: [
      [
        'i',
        {
          kind: 'struct',
          type: 'resource.int64Amount',
          fields: [
            ['value', scalar('int64', q.value.toString())],
            ['scale', scalar('resource.Scale', String(q.scale))],
          ],
        },
      ],
      ['d', { kind: 'struct', type: 'resource.infDecAmount', fields: [['Dec', decValue(q.dec)]] }],
      ['s', scalar('string', q.cached)],
      ['Format', scalar('resource.Format', q.format)],
    ],
  };
}

type Format = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

interface GoQuantity {
  value: bigint;
  scale: number;
  /** inf.Dec: unscaled value and scale (inf's scale is the number of fraction digits). */
  dec?: { unscaled: bigint; scale: number };
  cached: string;
  format: Format;
}

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

function parseGoQuantity(str: string): GoQuantity {
  const zero: GoQuantity = { value: 0n, scale: 0, cached: '', format: 'DecimalSI' };
  if (str === '0') return { ...zero, cached: '0' };
  const parts = splitQuantity(str);
  if (parts === undefined) return zero;
  const { positive, value, num, denom, suffix } = parts;
  const interpreted = interpretSuffix(suffix);
  if (interpreted === undefined) return zero;
  const { base, exponent } = interpreted;
  let { format } = interpreted;
  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const parsed = BigInt(shifted);
      const result = parsed * mantissa;
      if (parsed <= MAX_INT64 && result <= MAX_INT64) {
        const signed = positive ? result : -result;
        const canonical =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (parsed & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return { value: signed, scale, cached: canonical ? str : '', format };
      }
    }
  }
  // The inf.Dec path: the decimal value, times the suffix, rounded up to nano scale.
  let dec = decimalOf(value);
  if (base === 10) dec = { unscaled: dec.unscaled, scale: dec.scale - exponent };
  else dec = { unscaled: dec.unscaled * (1n << BigInt(exponent)), scale: dec.scale };
  const negative = dec.unscaled < 0n;
  if (negative) dec = { ...dec, unscaled: -dec.unscaled };
  if (dec.unscaled !== 0n) dec = roundDecUp(dec, 9);
  const max = { unscaled: MAX_INT64, scale: 0 };
  if (format === 'BinarySI' && compareDec(dec, max) > 0) dec = max;
  if (format === 'BinarySI' && compareDec(dec, { unscaled: 1n, scale: 0 }) < 0 && dec.unscaled > 0n) format = 'DecimalSI';
  if (negative) dec = { ...dec, unscaled: -dec.unscaled };
  return { value: 0n, scale: 0, dec, cached: '', format };
}

/** parseQuantityString: sign, leading zeros, numerator, fraction, suffix. */
function splitQuantity(str: string): { positive: boolean; value: string; num: string; denom: string; suffix: string } | undefined {
  const match = /^([+-]?)(0*)(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (match === null) return undefined;
  const [, sign = '', zeros = '', digits = '', fraction, rest = ''] = match;
  const positive = sign !== '-';
  if (digits === '' && fraction === undefined && rest === '') return { positive, value: '0', num: '0', denom: '', suffix: '' };
  const value = sign + zeros + digits + (fraction === undefined ? '' : `.${fraction}`);
  if (!/^[eEinumkKMGTP]*([+-]?\d*)$/.test(rest)) return undefined;
  return { positive, value, num: digits === '' ? '0' : digits, denom: fraction ?? '', suffix: rest };
}

function interpretSuffix(suffix: string): { base: 2 | 10; exponent: number; format: Format } | undefined {
  const decimal = DECIMAL_SUFFIXES[suffix];
  if (decimal !== undefined) return { base: 10, exponent: decimal, format: 'DecimalSI' };
  const binary = BINARY_SUFFIXES[suffix];
  if (binary !== undefined) return { base: 2, exponent: binary, format: 'BinarySI' };
  const exp = /^[eE]([+-]?\d+)$/.exec(suffix);
  if (exp !== null) return { base: 10, exponent: Number(exp[1]), format: 'DecimalExponent' };
  return undefined;
}

function decimalOf(value: string): { unscaled: bigint; scale: number } {
  const [whole = '', fraction = ''] = value.split('.');
  const digits = `${whole}${fraction}`.replace(/^([+-]?)$/, '$10');
  return { unscaled: BigInt(digits === '' || digits === '+' || digits === '-' ? '0' : digits), scale: fraction.length };
}

/** inf.Dec Round(x, s, RoundUp): away from zero when digits are dropped. */
function roundDecUp(dec: { unscaled: bigint; scale: number }, scale: number): { unscaled: bigint; scale: number } {
  if (scale >= dec.scale) return { unscaled: dec.unscaled * 10n ** BigInt(scale - dec.scale), scale };
  const divisor = 10n ** BigInt(dec.scale - scale);
  let q = dec.unscaled / divisor;
  if (dec.unscaled % divisor !== 0n) q += dec.unscaled < 0n ? -1n : 1n;
  return { unscaled: q, scale };
}

function compareDec(a: { unscaled: bigint; scale: number }, b: { unscaled: bigint; scale: number }): number {
  const s = Math.max(a.scale, b.scale);
  const x = a.unscaled * 10n ** BigInt(s - a.scale);
  const y = b.unscaled * 10n ** BigInt(s - b.scale);
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Quantity.RoundUp(scale): clears the cached string whenever it changes the value's scale. */
function roundUp(q: GoQuantity, scale: number): void {
  if (q.dec !== undefined) {
    q.cached = '';
    q.dec = roundDecUp(q.dec, -scale);
    return;
  }
  if (q.scale >= scale) return;
  q.cached = '';
  q.value = negativeScale(q.value, scale - q.scale);
  q.scale = scale;
}

// negativeScaleInt64: divide by 10^n, rounding away from zero when a fraction is dropped.
function negativeScale(base: bigint, n: number): bigint {
  const divisor = 10n ** BigInt(n);
  let q = base / divisor;
  if (base % divisor !== 0n) q += base > 0n ? 1n : -1n;
  return q < MIN_INT64 ? MIN_INT64 : q;
}

function decValue(dec: { unscaled: bigint; scale: number } | undefined): GoValue {
  if (dec === undefined) return { kind: 'pointer', type: '*inf.Dec' };
  const magnitude = dec.unscaled < 0n ? -dec.unscaled : dec.unscaled;
  const words: GoValue[] = [];
  for (let rest = magnitude; rest > 0n; rest >>= 64n) words.push(scalar('big.Word', (rest & 0xffffffffffffffffn).toString()));
  return {
    kind: 'pointer',
    type: '*inf.Dec',
    target: {
      kind: 'struct',
      type: 'inf.Dec',
      fields: [
        [
          'unscaled',
          {
            kind: 'struct',
            type: 'big.Int',
            fields: [
              ['neg', scalar('bool', String(dec.unscaled < 0n))],
              ['abs', { kind: 'slice', type: 'big.nat', ...(words.length > 0 ? { items: words } : {}) }],
            ],
          },
        ],
        ['scale', scalar('inf.Scale', String(dec.scale))],
      ],
    },
  };
}

function scalar(type: string, text: string): GoValue {
  return { kind: 'scalar', type, text };
}
