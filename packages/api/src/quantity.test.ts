import { ApiError } from './errors.js';
import { isValidQuantity, parseQuantity, quantityMilliValue, quantitySchema, quantityValue } from './quantity.js';

describe('parseQuantity', () => {
  it.each([
    ['1', 1],
    ['500m', 0.5],
    ['100n', 1e-7],
    ['10u', 1e-5],
    ['1k', 1000],
    ['2M', 2e6],
    ['1G', 1e9],
    ['1T', 1e12],
    ['1P', 1e15],
    ['1E', 1e18],
    ['1Ki', 1024],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['128Mi', 128 * 2 ** 20],
    ['1Ti', 2 ** 40],
    ['1Pi', 2 ** 50],
    ['1Ei', 2 ** 60],
    ['1e3', 1000],
    ['1E3', 1000],
    ['5e-3', 0.005],
    ['+2', 2],
    ['-2', -2],
    ['.5', 0.5],
    ['0.1', 0.1],
  ])('parses %s in base units', (input, expected) => {
    expect(parseQuantity(input)).toBeCloseTo(expected, 12);
  });

  it('accepts JSON numbers as upstream Quantity.UnmarshalJSON does', () => {
    expect(parseQuantity(2)).toBe(2);
    expect(parseQuantity(0.25)).toBe(0.25);
  });

  it.each(['', 'abc', '1 Gi', '1gi', '1.2.3', '1Kii', '--1', 'Mi', '1e', '1e999'])('rejects %j with INVALID_QUANTITY', (input) => {
    expect(() => parseQuantity(input)).toThrow(ApiError);
    try {
      parseQuantity(input);
    } catch (err) {
      expect((err as ApiError).code).toBe('INVALID_QUANTITY');
      expect((err as ApiError).message).toContain(JSON.stringify(input));
    }
    expect(isValidQuantity(input)).toBe(false);
  });

  it('rejects non-finite numbers and non-quantity types', () => {
    expect(isValidQuantity(Number.NaN)).toBe(false);
    expect(isValidQuantity(Infinity)).toBe(false);
    expect(isValidQuantity(true)).toBe(false);
    expect(isValidQuantity({})).toBe(false);
  });
});

describe('quantityMilliValue and quantityValue', () => {
  it('computes exact milli values without float drift', () => {
    expect(quantityMilliValue('0.1')).toBe(100);
    expect(quantityMilliValue('250m')).toBe(250);
    expect(quantityMilliValue('1.1')).toBe(1100);
    expect(quantityMilliValue('3')).toBe(3000);
  });

  it('rounds up like upstream MilliValue/Value', () => {
    expect(quantityMilliValue('0.1m')).toBe(1);
    expect(quantityMilliValue('1n')).toBe(1);
    expect(quantityValue('1500m')).toBe(2);
    expect(quantityValue('1Gi')).toBe(1073741824);
    expect(quantityValue('1m')).toBe(1);
    expect(quantityValue('-1500m')).toBe(-2);
  });
});

describe('quantitySchema', () => {
  it('keeps the original form and reports the upstream format message', () => {
    expect(quantitySchema.parse('1Gi')).toBe('1Gi');
    expect(quantitySchema.parse(3)).toBe(3);
    const result = quantitySchema.safeParse('lots');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('quantities must match the regular expression');
  });
});
