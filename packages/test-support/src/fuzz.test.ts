import { fc, fuzz, fuzzRuns, mutated, nestedText, yamlAliasBomb } from './fuzz.js';

describe('fuzz helpers', () => {
  it('scales the number of cases by KUBELET_TS_FUZZ_SCALE', () => {
    const saved = process.env.KUBELET_TS_FUZZ_SCALE;
    try {
      process.env.KUBELET_TS_FUZZ_SCALE = '50';
      expect(fuzzRuns(20)).toBe(1000);
      process.env.KUBELET_TS_FUZZ_SCALE = 'nonsense';
      expect(fuzzRuns(20)).toBe(20);
    } finally {
      if (saved === undefined) delete process.env.KUBELET_TS_FUZZ_SCALE;
      else process.env.KUBELET_TS_FUZZ_SCALE = saved;
    }
  });

  it('builds nesting of the asked depth and alias bombs', () => {
    expect(nestedText(3, 'array')).toBe('[[[]]]');
    expect(nestedText(2, 'object')).toBe('{"a":{"a":1}}');
    expect(nestedText(2, 'yaml-block')).toBe('a:\n a:\n  b: 1');
    expect(yamlAliasBomb(1, 2)).toBe('a0: &a0 ["lol"]\na1: &a1 [*a0, *a0]');
  });

  it('changes one spot of a valid value and leaves the original alone', () => {
    const valid = { kind: 'Pod', spec: { containers: [{ name: 'c' }] } };
    const seen = fc.sample(mutated(valid), { numRuns: 200, seed: 7 });
    expect(seen.some((value) => JSON.stringify(value) !== JSON.stringify(valid))).toBe(true);
    expect(valid).toEqual({ kind: 'Pod', spec: { containers: [{ name: 'c' }] } });
  });

  it('fails a property whose code throws', async () => {
    await expect(
      fuzz(
        'always-throws',
        fc.integer(),
        () => {
          throw new Error('boom');
        },
        { runs: 5 },
      ),
    ).rejects.toThrow(/boom/);
  });
});
