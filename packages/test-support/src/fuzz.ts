/**
 * Shared pieces of the fuzz tests (fast-check): how many cases a run makes, the hostile inputs every
 * parser is fed, and a report of what was run. Unit runs make `base` cases per property; the long run
 * (`npm run fuzz`) multiplies them by KUBELET_TS_FUZZ_SCALE and records each property's count in the
 * JSON-lines file named by KUBELET_TS_FUZZ_REPORT.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

export { fc };

/** Number of cases for a property whose unit-run count is `base`. */
export function fuzzRuns(base: number): number {
  const scale = Number(process.env.KUBELET_TS_FUZZ_SCALE ?? '1');
  return Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

export interface FuzzOptions {
  /** Cases in a unit run (scaled by KUBELET_TS_FUZZ_SCALE). */
  readonly runs: number;
}

/**
 * Checks `property` over `arbitrary` and records the run. (Under jest an unhandled rejection or uncaught
 * exception raised while it runs fails the test as well.)
 */
export async function fuzz<T>(
  input: string,
  arbitrary: fc.Arbitrary<T>,
  property: (value: T) => Promise<void> | void,
  options: FuzzOptions,
): Promise<void> {
  const numRuns = fuzzRuns(options.runs);
  const seedText = process.env.KUBELET_TS_FUZZ_SEED;
  const seed = seedText !== undefined && seedText !== '' ? Number(seedText) : undefined;
  const started = Date.now();
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      await property(value);
    }),
    { numRuns, includeErrorInReport: true, ...(seed !== undefined && Number.isFinite(seed) ? { seed } : {}) },
  );
  const report = process.env.KUBELET_TS_FUZZ_REPORT;
  if (report !== undefined && report !== '') {
    appendFileSync(report, `${JSON.stringify({ input, cases: numRuns, ms: Date.now() - started })}\n`);
  }
}

/** Text nested `depth` levels deep: `[[[…]]]`, `{"a":{"a":…}}` or YAML block mappings. */
export function nestedText(depth: number, shape: 'array' | 'object' | 'yaml-block' | 'yaml-flow'): string {
  switch (shape) {
    case 'array':
      return '['.repeat(depth) + ']'.repeat(depth);
    case 'object':
      return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    case 'yaml-flow':
      return '{a: '.repeat(depth) + '1' + '}'.repeat(depth);
    case 'yaml-block': {
      const lines: string[] = [];
      for (let i = 0; i < depth; i++) lines.push(`${' '.repeat(i)}a:`);
      lines.push(`${' '.repeat(depth)}b: 1`);
      return lines.join('\n');
    }
  }
}

/** A YAML alias bomb: each level refers to the previous one `width` times ("billion laughs"). */
export function yamlAliasBomb(levels: number, width: number): string {
  const lines = ['a0: &a0 ["lol"]'];
  for (let i = 1; i <= levels; i++) {
    lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
  }
  return lines.join('\n');
}

const BOMS = ['\uFEFF', '\xFE\xFF', '\xFF\xFE', ''];

/** Strings and byte sequences no parser expects: deep nesting, alias bombs, encodings, huge values. */
export function hostileText(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.json({ maxDepth: 6 }),
    fc
      .tuple(fc.integer({ min: 1, max: 200_000 }), fc.constantFrom('array', 'object', 'yaml-flow') as fc.Arbitrary<'array'>)
      .map(([depth, shape]) => nestedText(depth, shape)),
    // Block indentation grows with depth, so its text grows with depth squared: kept shallower.
    fc.integer({ min: 1, max: 2_000 }).map((depth) => nestedText(depth, 'yaml-block')),
    fc.integer({ min: 2, max: 12 }).map((levels) => yamlAliasBomb(levels, 9)),
    fc.tuple(fc.constantFrom(...BOMS), fc.json({ maxDepth: 3 })).map(([bom, text]) => bom + text),
    fc.integer({ min: 1, max: 4 * 1024 * 1024 }).map((size) => `{"kind":"${'x'.repeat(size)}"}`),
    fc.constantFrom(
      '',
      '\0',
      'null',
      '[]',
      '---\n---\n',
      '!!binary AAAA',
      'a: !!js/function "function(){}"',
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      '1e400',
      '"\\ud800"',
      'key: [unclosed',
      '\t- tab',
      '%YAML 9.9\n---\na: 1',
    ),
  );
}

/** Bytes: random, invalid UTF-8, UTF-16 with BOMs, hostile text encoded. */
export function hostileBytes(): fc.Arbitrary<Uint8Array> {
  return fc.oneof(
    fc.uint8Array({ maxLength: 2048 }),
    hostileText().map((text) => new Uint8Array(Buffer.from(text, 'utf8'))),
    fc.json({ maxDepth: 3 }).map((text) => new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]))),
    fc.constant(new Uint8Array([0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc])),
  );
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * `valid` with one spot changed: a value replaced by any JSON value or a hostile string, a key removed,
 * or a subtree nested deep — the inputs that pass a first look and fail later.
 */
export function mutated(valid: Json): fc.Arbitrary<Json> {
  const paths = collectPaths(valid);
  const replacement = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
    hostileText(),
    fc.constantFrom<Json>(null, -1, 0, 2 ** 53, -(2 ** 63), 1e308, '', 'ünïcødé', '../../etc/passwd', []),
    fc.integer({ min: 100, max: 50_000 }).map((depth) => deepArray(depth)),
  );
  return fc
    .tuple(fc.constantFrom(...paths), replacement, fc.boolean())
    .map(([path, value, remove]) => replaceAt(valid, path, remove ? undefined : value));
}

function deepArray(depth: number): Json {
  let value: Json = [];
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function collectPaths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(value)) value.forEach((item, i) => collectPaths(item, [...prefix, i], out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) collectPaths(item, [...prefix, key], out);
  }
  return out;
}

function replaceAt(value: Json, path: (string | number)[], replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    const next = replaceAt(copy[head as number] as Json, rest, replacement);
    if (replacement === undefined && rest.length === 0) copy.splice(head as number, 1);
    else copy[head as number] = next;
    return copy;
  }
  const copy = { ...(value as Record<string, Json>) };
  if (replacement === undefined && rest.length === 0) delete copy[head as string];
  else copy[head as string] = replaceAt(copy[head as string] as Json, rest, replacement);
  return copy;
}
