import { MAX_NESTING_DEPTH, flowNestingExceeds } from '@kubelet-ts/api';
import { parseAllDocuments } from 'yaml';

export type ManifestParse = { ok: true; value: unknown } | { ok: false; path: string; reason: string };

/**
 * Parses one manifest (YAML or JSON) as Go's sigs.k8s.io/yaml would: YAML 1.1, so `0644` is octal
 * and `yes` is a boolean. Exactly one document is allowed: one pod per file.
 */
export function parseManifest(text: string, fileName?: string): ManifestParse {
  // JSON is a subset of YAML, and JSON.parse is far cheaper: try it first for JSON-looking input,
  // and fall back to the YAML parser (and its error messages) when it is not valid JSON.
  if (fileName?.endsWith('.json') === true || text.trimStart().startsWith('{')) {
    const json = parseJson(text);
    if (json !== undefined) return json;
  }
  // The YAML parser recurses per flow level and takes seconds on a few hundred KB of `[[[[`: refuse
  // deep flow nesting from a linear scan first (upstream's go-yaml stops at 10 000 levels, see
  // MAX_NESTING_DEPTH for why ours is lower).
  if (flowNestingExceeds(text, MAX_NESTING_DEPTH)) {
    return { ok: false, path: '', reason: `invalid YAML: nested more than ${MAX_NESTING_DEPTH} levels deep` };
  }
  let docs;
  try {
    docs = parseAllDocuments(text, { version: '1.1', prettyErrors: true });
  } catch (err) {
    return { ok: false, path: '', reason: `invalid YAML: ${firstLine(err)}` };
  }
  // parseAllDocuments returns an EmptyStream (an array with no documents) for empty input.
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    const error = doc.errors[0];
    if (error !== undefined) return { ok: false, path: '', reason: `invalid YAML: ${firstLine(error)}` };
  }
  const values: unknown[] = [];
  for (const doc of list) {
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      return { ok: false, path: '', reason: `invalid YAML: ${firstLine(err)}` };
    }
    if (value !== null && value !== undefined) values.push(value);
  }
  if (values.length === 0) return { ok: false, path: '', reason: 'empty manifest: expected a Pod object' };
  if (values.length > 1) {
    return { ok: false, path: '', reason: `found ${values.length} YAML documents: a manifest file must hold exactly one Pod` };
  }
  return { ok: true, value: values[0] };
}

function parseJson(text: string): ManifestParse | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null) return { ok: false, path: '', reason: 'empty manifest: expected a Pod object' };
  return { ok: true, value };
}

function firstLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Deep block nesting overflows the parser's stack (it reports V8's RangeError as a YAML error).
  if (message.startsWith('Maximum call stack size exceeded')) {
    return `nested too deep to parse${(message.slice(32).split('\n')[0] ?? '').replace(/:$/, '')}`;
  }
  return message.split('\n')[0] ?? message;
}
