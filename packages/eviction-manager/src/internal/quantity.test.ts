import { formatBinaryQuantity, quantityOrZero } from './quantity.js';

describe('formatBinaryQuantity (Go BinarySI String)', () => {
  it('uses the largest exact power-of-1024 suffix, else the plain integer', () => {
    expect(formatBinaryQuantity(0)).toBe('0');
    expect(formatBinaryQuantity(1000)).toBe('1000');
    expect(formatBinaryQuantity(1536)).toBe('1536');
    expect(formatBinaryQuantity(51200 * 1024)).toBe('50Mi');
    expect(formatBinaryQuantity(123 * 1024)).toBe('123Ki');
    expect(formatBinaryQuantity(10 * 1024 ** 3)).toBe('10Gi');
  });
});

describe('quantityOrZero', () => {
  it('reads quantities and numbers in base units, 0 for what is absent or does not parse', () => {
    expect(quantityOrZero('100Mi')).toBe(100 * 1024 ** 2);
    expect(quantityOrZero('250m')).toBe(0.25);
    expect(quantityOrZero(1536)).toBe(1536);
    expect(quantityOrZero(undefined)).toBe(0);
    expect(quantityOrZero('lots')).toBe(0);
  });
});
