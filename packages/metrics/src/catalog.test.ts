// The catalog of the promtool test against the sources: every metric a library defines is in it, as defined.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CATALOG } from './internal/catalog.test-helper.js';

const PACKAGES = join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return entry === 'testing' || entry === 'gen' ? [] : sourceFiles(path);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') && !entry.includes('test-helper') ? [path] : [];
  });
}

/** `metrics.counter<…>({ name: 'x' | CONSTANT, …, labelNames: [...] })` calls, the constants resolved. */
function definedMetrics(): Array<{ kind: string; name: string; labelNames: string[]; file: string }> {
  const files = readdirSync(PACKAGES)
    .filter((p) => p !== 'metrics' && p !== 'common')
    .flatMap((p) => {
      try {
        return sourceFiles(join(PACKAGES, p, 'src'));
      } catch {
        return [];
      }
    });
  const texts = files.map((file) => ({ file, text: readFileSync(file, 'utf8') }));
  const constants = new Map<string, string>();
  for (const { text } of texts) for (const m of text.matchAll(/const ([A-Z_]+) = '([a-z_:]+)'/g)) constants.set(m[1] ?? '', m[2] ?? '');
  const found: Array<{ kind: string; name: string; labelNames: string[]; file: string }> = [];
  for (const { file, text } of texts) {
    for (const m of text.matchAll(/\.(counter|gauge|histogram)(?:<[^>]*>)?\(\{\s*name: (?:'([a-z_:]+)'|([A-Z_]+))([\s\S]*?)\}\)/g)) {
      const name = m[2] ?? constants.get(m[3] ?? '') ?? `unresolved ${m[3]}`;
      const labels = /labelNames: \[([^\]]*)\]/.exec(m[4] ?? '')?.[1] ?? '';
      found.push({ kind: m[1] ?? '', name, labelNames: [...labels.matchAll(/'([a-z_]+)'/g)].map((l) => l[1] ?? ''), file });
    }
  }
  return found;
}

describe('the metrics catalog', () => {
  it('lists every metric the libraries define, with its kind and label names', () => {
    const defined = definedMetrics();
    expect(defined.length).toBeGreaterThan(20);
    const asDefined = defined
      .map(({ kind, name, labelNames }) => ({ kind, name, labelNames }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const catalog = CATALOG.map(({ kind, name, labelNames }) => ({ kind, name, labelNames: [...labelNames] })).sort((a, b) =>
      a.name.localeCompare(b.name),
    );
    expect(asDefined).toEqual(catalog);
  });
});
