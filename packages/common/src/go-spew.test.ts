import type { GoValue } from './go-spew.js';
import { goByteSlice, spewForHash } from './go-spew.js';

const str = (text: string, type = 'string'): GoValue => ({ kind: 'scalar', type, text });
const int64 = (n: number): GoValue => ({ kind: 'scalar', type: 'int64', text: String(n) });

describe('spewForHash (go-spew %#v as dump.ForHash configures it)', () => {
  it('prints a byte slice with its type and decimal elements', () => {
    expect(spewForHash(goByteSlice(Buffer.from('{"a"}')))).toBe('([]uint8)[123 34 97 34 125]');
  });

  it('prints struct fields with their types, nil and non-nil pointers, nil and empty slices', () => {
    const value: GoValue = {
      kind: 'pointer',
      type: '*core.Thing',
      target: {
        kind: 'struct',
        type: 'core.Thing',
        fields: [
          ['Name', str('web')],
          ['Grace', { kind: 'pointer', type: '*int64', target: int64(30) }],
          ['Deadline', { kind: 'pointer', type: '*int64' }],
          ['Command', { kind: 'slice', type: '[]string' }],
          ['Args', { kind: 'slice', type: '[]string', items: [] }],
          [
            'Ports',
            {
              kind: 'slice',
              type: '[]core.Port',
              items: [{ kind: 'struct', type: 'core.Port', fields: [['Port', { kind: 'scalar', type: 'int32', text: '80' }]] }],
            },
          ],
          [
            'Refs',
            {
              kind: 'slice',
              type: '[]*core.Ref',
              items: [
                { kind: 'pointer', type: '*core.Ref', target: { kind: 'struct', type: 'core.Ref', fields: [] } },
                { kind: 'pointer', type: '*core.Ref' },
              ],
            },
          ],
        ],
      },
    };
    expect(spewForHash(value)).toBe(
      '(*core.Thing){Name:(string)web Grace:(*int64)30 Deadline:(*int64)<nil> Command:([]string)<nil> Args:([]string)[] ' +
        'Ports:([]core.Port)[{Port:(int32)80}] Refs:([]*core.Ref)[<*>{} <nil>]}',
    );
  });

  it('sorts map keys byte-wise and prints nil maps as <nil>', () => {
    const map: GoValue = {
      kind: 'map',
      type: 'map[string]string',
      entries: [
        [str('b'), str('2')],
        [str('B'), str('1')],
        [str('a'), str('3')],
      ],
    };
    expect(spewForHash(map)).toBe('(map[string]string)map[B:1 a:3 b:2]');
    expect(spewForHash({ kind: 'map', type: 'map[string]string' })).toBe('(map[string]string)<nil>');
    const int = (n: number): GoValue => ({ kind: 'scalar', type: 'int', text: String(n) });
    expect(
      spewForHash({
        kind: 'map',
        type: 'map[int]string',
        entries: [
          [int(10), str('x')],
          [int(2), str('y')],
        ],
      }),
    ).toBe('(map[int]string)map[2:y 10:x]');
  });
});
