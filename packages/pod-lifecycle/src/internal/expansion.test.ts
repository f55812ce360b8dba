import { expand } from './expansion.js';

describe('expand', () => {
  const vars: Record<string, string> = { A: 'alpha', B: 'beta', EMPTY: '' };
  const lookup = (n: string): string | undefined => vars[n];
  it.each([
    ['$(A)', 'alpha'],
    ['x-$(A)-$(B)-y', 'x-alpha-beta-y'],
    ['$(EMPTY)z', 'z'],
    ['$(UNKNOWN)', '$(UNKNOWN)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$alpha'],
    ['$A', '$A'],
    ['cost: 5$', 'cost: 5$'],
    ['$(A', '$(A'],
    ['$()', '$()'],
    ['plain', 'plain'],
  ])('%s → %s', (input, output) => {
    expect(expand(input, lookup)).toBe(output);
  });
});
