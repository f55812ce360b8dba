import { parseManifest } from './manifest.js';
import { rfc3339Nano } from './json.js';

describe('parseManifest', () => {
  it('reads YAML 1.1 like Go does: 0644 is octal, yes is true', () => {
    expect(parseManifest('mode: 0644\nflag: yes\n')).toEqual({ ok: true, value: { mode: 420, flag: true } });
  });

  it('reads JSON', () => {
    expect(parseManifest('{"kind":"Pod","spec":{"containers":[]}}')).toEqual({
      ok: true,
      value: { kind: 'Pod', spec: { containers: [] } },
    });
  });

  it('reads JSON with JSON.parse and falls back to YAML when it is not JSON', () => {
    // Not valid JSON (unquoted keys, a comment) but valid YAML flow style.
    expect(parseManifest('{kind: Pod, mode: 0644} # flow\n', 'a.yaml')).toEqual({ ok: true, value: { kind: 'Pod', mode: 420 } });
    expect(parseManifest('  {"kind":"Pod"}\n', 'pod.yaml')).toEqual({ ok: true, value: { kind: 'Pod' } });
    expect(parseManifest('kind: Pod\n', 'misnamed.json')).toEqual({ ok: true, value: { kind: 'Pod' } });
    expect(parseManifest('null', 'empty.json')).toEqual({ ok: false, path: '', reason: 'empty manifest: expected a Pod object' });
    const broken = parseManifest('{"kind": "Pod",', 'broken.json');
    expect(!broken.ok && broken.reason).toMatch(/^invalid YAML: /);
  });

  it('accepts a leading and trailing document marker around one document', () => {
    expect(parseManifest('---\nkind: Pod\n---\n')).toEqual({ ok: true, value: { kind: 'Pod' } });
  });

  it('rejects several documents: one pod per file', () => {
    expect(parseManifest('kind: Pod\n---\nkind: Pod\n')).toEqual({
      ok: false,
      path: '',
      reason: 'found 2 YAML documents: a manifest file must hold exactly one Pod',
    });
  });

  it('rejects broken YAML with the position, and empty files', () => {
    const bad = parseManifest('kind: Pod\nspec: [unclosed\n');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.reason).toMatch(/^invalid YAML: .*line \d+/);
    expect(parseManifest('# only a comment\n')).toEqual({ ok: false, path: '', reason: 'empty manifest: expected a Pod object' });
  });
});

describe('rfc3339Nano', () => {
  it('trims trailing zeros of the fraction like Go', () => {
    expect(rfc3339Nano(Date.UTC(2026, 0, 1, 0, 0, 0, 120))).toBe('2026-01-01T00:00:00.12Z');
    expect(rfc3339Nano(Date.UTC(2026, 0, 1, 0, 0, 0, 0))).toBe('2026-01-01T00:00:00Z');
    expect(rfc3339Nano(Date.UTC(2026, 0, 1, 0, 0, 0, 7))).toBe('2026-01-01T00:00:00.007Z');
  });
});

describe('parseManifest nesting limits', () => {
  // Found by the file source fuzzer: 400 KB of `[[[[` took the YAML parser 2 s and ended in V8's
  // "Maximum call stack size exceeded"; a 10 MiB file would have blocked the event loop for a minute.
  it('refuses flow nesting deeper than MAX_NESTING_DEPTH at once, without parsing', () => {
    const started = Date.now();
    expect(parseManifest('['.repeat(200_000) + ']'.repeat(200_000), 'pod.yaml')).toEqual({
      ok: false,
      path: '',
      reason: 'invalid YAML: nested more than 1000 levels deep',
    });
    expect(parseManifest('{a: '.repeat(5_000) + '1' + '}'.repeat(5_000), 'pod.yaml')).toMatchObject({
      ok: false,
      reason: 'invalid YAML: nested more than 1000 levels deep',
    });
    expect(Date.now() - started).toBeLessThan(1_000);
    // Brackets inside double-quoted strings do not count.
    expect(parseManifest(`args: ["${'['.repeat(5_000)}"]\n`, 'pod.yaml')).toEqual({ ok: true, value: { args: ['['.repeat(5_000)] } });
  });

  it('names deep block nesting the YAML parser cannot follow instead of printing a stack overflow', () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => `${' '.repeat(i)}a:`);
    const parsed = parseManifest(`${lines.join('\n')}\n${' '.repeat(3_000)}b: 1\n`, 'pod.yaml');
    expect(parsed).toMatchObject({ ok: false, path: '' });
    if (!parsed.ok) expect(parsed.reason).toMatch(/^invalid YAML: nested too deep to parse at line \d+, column \d+$/);
  });
});
