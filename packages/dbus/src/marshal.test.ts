// Byte vectors of the specification's wire format, written out by hand from its rules (alignment
// from the start of the message, length prefixes, the padding before an array's first element not
// counted in its length) and checked both ways.
import { DBusError, marshal, parseSignature, unmarshal } from './index.js';
import type { DBusValue } from './index.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const VECTORS: Array<[string, DBusValue[], string]> = [
  ['s', ['foo'], '03000000 666f6f00'],
  ['b', [true], '01000000'],
  ['b', [false], '00000000'],
  // y then u: three bytes of padding to the uint32's 4.
  ['yu', [1, 2], '01000000 02000000'],
  // InhibitDelayMaxUSec of 5 s, logind's default.
  ['t', [5_000_000n], '404b4c0000000000'],
  ['x', [-2n], 'feffffffffffffff'],
  ['n', [-1], 'ffff'],
  ['q', [0x1234], '3412'],
  ['i', [-2], 'feffffff'],
  ['d', [1.5], '000000000000f83f'],
  // A unix fd argument is an index into the message's fds.
  ['h', [0], '00000000'],
  ['o', ['/org/freedesktop/login1'], '17000000 2f6f72672f667265656465736b746f702f6c6f67696e3100'],
  ['g', ['a{sv}'], '05 61 7b 73 76 7d 00'],
  // The four arguments of logind's Inhibit, as upstream calls it.
  [
    'ssss',
    ['shutdown', 'kubelet', 'why', 'delay'],
    '08000000 73687574646f776e00 000000 07000000 6b7562656c657400 03000000 77687900 05000000 64656c617900',
  ],
  // An array of uint64: 4 bytes of padding after the length (to the element's 8), not counted in it.
  ['at', [[1n]], '08000000 00000000 0100000000000000'],
  ['as', [[]], '00000000'],
  ['au', [[1, 2]], '08000000 01000000 02000000'],
  // A dict: entries aligned to 8; "a" then the variant's signature "u", padding, the uint32.
  ['a{sv}', [[['a', { signature: 'u', value: 1 }]]], '10000000 00000000 01000000 6100 017500 000000 01000000'],
  ['v', [{ signature: 'b', value: true }], '016200 00 01000000'],
  ['(yt)', [[7, 9n]], '07 00000000000000 0900000000000000'],
  // PrepareForShutdown's body.
  ['b', [true], '01000000'],
];

describe('marshal / unmarshal', () => {
  it.each(VECTORS)('%s %j ↔ %s', (signature, values, bytes) => {
    expect(marshal(signature, values).toString('hex')).toBe(hex(bytes).toString('hex'));
    expect(unmarshal(signature, hex(bytes))).toEqual(values.map((v) => (typeof v === 'number' && /[xt]/.test(signature) ? BigInt(v) : v)));
  });

  it('writes values past its first buffer intact (a long match rule, a large array)', () => {
    const rule = `type='signal',interface='org.freedesktop.login1.Manager',member='PrepareForShutdown',${'x'.repeat(300)}`;
    const values: DBusValue[] = ['a'.repeat(250), rule, Array.from({ length: 100 }, (_, i) => BigInt(i))];
    expect(unmarshal('ssat', marshal('ssat', values))).toEqual(values);
  });

  it('reads big-endian messages too', () => {
    expect(unmarshal('ut', hex('00000002 00000000 00000000004c4b40'), 'be')).toEqual([2, 5_000_000n]);
    expect(unmarshal('s', hex('00000003 666f6f00'), 'be')).toEqual(['foo']);
  });

  it.each([
    ['b', '02000000', 'boolean 2'],
    ['s', '03000000 666f6f01', 'not NUL-terminated'],
    ['s', '02000000 c3 28 00', 'not UTF-8'],
    ['s', 'ffffff7f 00', 'truncated'],
    ['u', '0100', 'truncated'],
    ['au', 'ffffffff', 'at most 64 MiB'],
    ['au', '08000000 01000000', 'runs past the message'],
    ['yu', '01 010000 02000000', 'non-zero padding'],
    ['o', '03000000 2f2f6100', 'not an object path'],
    ['v', '02 6969 00', 'not one complete type'],
    ['g', '01 7a 00', 'not a signature'],
    ['u', '01000000 00', '1 bytes left'],
  ])('a malformed %s (%s) is a PROTOCOL DBusError: %s', (signature, bytes, reason) => {
    let error: unknown;
    try {
      unmarshal(signature, hex(bytes));
    } catch (err) {
      error = err;
    }
    expect(DBusError.is(error, 'PROTOCOL')).toBe(true);
    expect((error as Error).message).toContain(reason);
  });

  it('refuses values that do not fit the signature, with INVALID_VALUE', () => {
    for (const [signature, value] of [
      ['u', -1],
      ['y', 256],
      ['b', 1],
      ['s', 3],
      ['s', 'a\0b'],
      ['o', 'relative/path'],
      ['t', -1n],
      ['(ss)', ['one']],
      ['v', 'plain'],
    ] as Array<[string, DBusValue]>) {
      expect(() => marshal(signature, [value])).toThrow(expect.objectContaining({ code: 'INVALID_VALUE' }));
    }
    expect(() => marshal('ss', ['one'])).toThrow(expect.objectContaining({ code: 'INVALID_VALUE' }));
  });

  it('parses signatures and refuses invalid ones with INVALID_SIGNATURE', () => {
    expect(parseSignature('a{sv}as(ub)')).toHaveLength(3);
    for (const bad of ['a', 'a{vs}', 'a{s}', '(', '()', 'z', 'a{sss}', `${'a'.repeat(33)}s`]) {
      expect(() => parseSignature(bad)).toThrow(expect.objectContaining({ code: 'INVALID_SIGNATURE' }));
    }
  });
});
