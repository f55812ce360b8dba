import { MAX_NESTING_DEPTH, findTooDeep, flowNestingExceeds } from '@kubelet-ts/api';
import { isMap, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document } from 'yaml';

/** How unknown and duplicate fields of a KubeletConfiguration file are treated. */
export type UnknownFieldsMode = 'error' | 'warn';

/** The words upstream logs when it falls back (pkg/kubelet/kubeletconfig/util/codec). */
export const LENIENT_DECODING_MESSAGE = 'Using lenient decoding as strict decoding failed';

export interface ParsedConfigText {
  /** The document as data; for a duplicate key the last value wins, as with sigs.k8s.io/yaml. */
  value?: unknown;
  /** YAML/JSON syntax errors (fatal in either mode). */
  syntaxErrors: string[];
  /** Dotted paths of keys that appear more than once in the same mapping (strict decoding errors upstream). */
  duplicates: string[];
}

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

/** Every key repeated within one mapping, as `parent.key` paths (`[i]` for list items). */
function findDuplicates(node: unknown, prefix: string, out: string[]): void {
  if (isMap(node)) {
    const seen = new Set<string>();
    for (const pair of node.items) {
      const key = keyText(pair.key);
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (seen.has(key)) out.push(path);
      seen.add(key);
      findDuplicates(pair.value, path, out);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => findDuplicates(item, `${prefix}[${i}]`, out));
  }
}

/**
 * Parses a KubeletConfiguration file's text (YAML 1.1, like upstream's go-yaml v2 based decoder; JSON is
 * YAML). Duplicate keys are not syntax errors here: they are reported in `duplicates` so that the caller
 * can do what upstream does with a strict decoding error (fall back, or fail).
 */
export function parseConfigText(text: string): ParsedConfigText {
  const tooDeep = { syntaxErrors: [`nested more than ${MAX_NESTING_DEPTH} levels deep`], duplicates: [] };
  // Refused before the recursive YAML parser sees it (upstream's go-yaml stops at 10 000 levels).
  if (flowNestingExceeds(text, MAX_NESTING_DEPTH)) return tooDeep;
  try {
    const doc: Document = parseDocument(text, { version: '1.1', uniqueKeys: false, prettyErrors: false });
    const syntaxErrors = doc.errors.map((e) => firstLine(e.message));
    if (syntaxErrors.length > 0) return { syntaxErrors, duplicates: [] };
    const duplicates: string[] = [];
    findDuplicates(doc.contents, '', duplicates);
    // At most 100 aliases expanded (yaml's maxAliasCount): an alias bomb throws "Excessive alias count".
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (findTooDeep(value, MAX_NESTING_DEPTH) !== undefined) return tooDeep;
    return { value, syntaxErrors, duplicates };
  } catch (err) {
    return { syntaxErrors: [firstLine(err instanceof Error ? err.message : String(err))], duplicates: [] };
  }
}

function firstLine(message: string): string {
  // Block nesting too deep for the parser's stack comes back as V8's RangeError message.
  if (message.startsWith('Maximum call stack size exceeded')) return 'nested too deep to parse';
  return message.split('\n')[0] ?? message;
}
