import { expandContainerCommandAndArgs, expandContainerCommandOnlyStatic, expandVariables } from './expansion.js';

describe('expandVariables (upstream third_party/forked/golang/expansion)', () => {
  const vars: Record<string, string> = { A: 'alpha', B: 'beta', EMPTY: '' };
  const lookup = (n: string): string | undefined => vars[n];
  it.each([
    ['$(A)', 'alpha'],
    ['x-$(A)-$(B)-y', 'x-alpha-beta-y'],
    ['x$(A)y', 'xalphay'],
    ['$(EMPTY)z', 'z'],
    ['$(UNKNOWN)', '$(UNKNOWN)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$alpha'],
    ['$A', '$A'],
    ['cost: 5$', 'cost: 5$'],
    ['$(A', '$(A'],
    ['$()', '$()'],
    ['plain', 'plain'],
    ['', ''],
    // A reference ends at the first `)`, whatever comes before it.
    ['$(A $$ $(B)', '$(A $$ $(B)'],
    ['$($(A))', '$($(A))'],
    // Without any `)` the `$(` is kept and scanning goes on, as upstream's: probe-runner's former
    // copy kept the rest verbatim and so left the `$$` escaped twice.
    ['$(A $$', '$(A $'],
    ['$$ $(A $$', '$ $(A $'],
  ])('%j → %j', (input, output) => {
    expect(expandVariables(input, lookup)).toBe(output);
  });
});

describe('expandContainerCommandAndArgs', () => {
  it('expands command and args from the resolved env, later entries winning', () => {
    expect(
      expandContainerCommandAndArgs(
        ['echo', '$(X)'],
        ['$(X)$(X)', '$$(X)'],
        [
          { name: 'X', value: '1' },
          { name: 'X', value: '2' },
        ],
      ),
    ).toEqual({
      command: ['echo', '2'],
      args: ['22', '$(X)'],
    });
    expect(expandContainerCommandAndArgs(undefined, undefined, [])).toEqual({ command: [], args: [] });
  });
});

describe('expandContainerCommandOnlyStatic', () => {
  it('expands from literal env values only', () => {
    const env = [
      { name: 'GREETING', value: 'hi' },
      { name: 'FROM_FIELD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ];
    expect(expandContainerCommandOnlyStatic(['echo', '$(GREETING)', '$(FROM_FIELD)', '$$(GREETING) $(GREETING'], env)).toEqual([
      'echo',
      'hi',
      '$(FROM_FIELD)',
      '$(GREETING) $(GREETING',
    ]);
    expect(expandContainerCommandOnlyStatic(['x'], undefined)).toEqual(['x']);
  });
});
