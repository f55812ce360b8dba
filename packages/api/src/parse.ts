import type { z } from 'zod';
import { applyPodDefaults } from './defaults.js';
import type { Pod } from './schemas.js';
import { PodSchema } from './schemas.js';
import type { ValidationIssue } from './validation.js';
import { validatePod } from './validation.js';

/** A problem found while parsing a pod, attributed to where it came from. */
export interface PodIssue extends ValidationIssue {
  /** Where the object came from: a file path, a URL, "api". */
  source: string;
}

export type ParsePodResult = { ok: true; pod: Pod } | { ok: false; errors: PodIssue[] };

export interface ParsePodOptions {
  /** Require `apiVersion: v1` and `kind: Pod`, as a manifest must carry them. Default true; false for items of a PodList. */
  requireTypeMeta?: boolean;
  /** Apply {@link applyPodDefaults} before validating. Default true. */
  applyDefaults?: boolean;
  /** Run {@link validatePod}. Default true. */
  validate?: boolean;
}

/** `<source>: <path>: <reason>`, the way every kubelet-ts component prints a pod problem. */
export function formatIssue(issue: PodIssue | (ValidationIssue & { source?: string })): string {
  const where = issue.path === '' ? '' : `${issue.path}: `;
  return issue.source === undefined || issue.source === '' ? `${where}${issue.reason}` : `${issue.source}: ${where}${issue.reason}`;
}

/**
 * Decodes an untrusted object into a Pod: type check with zod (unknown fields kept, null treated
 * as absent like Go's decoder), upstream defaults, then {@link validatePod}. Every problem is
 * returned with `source`, field `path` and `reason`; the function never throws for bad input.
 */
export function parsePod(input: unknown, source: string, options: ParsePodOptions = {}): ParsePodResult {
  const fail = (issues: ValidationIssue[]): ParsePodResult => ({
    ok: false,
    errors: issues.map((i) => ({ source, path: i.path, reason: i.reason })),
  });
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return fail([{ path: '', reason: `Invalid value: expected a Pod object, got ${describe(input)}` }]);
  }
  const tooDeep = findTooDeep(input, MAX_NESTING_DEPTH);
  if (tooDeep !== undefined) {
    return fail([{ path: tooDeep, reason: `Invalid value: nested more than ${MAX_NESTING_DEPTH} levels deep` }]);
  }
  const raw = stripNulls(input) as Record<string, unknown>;
  if (options.requireTypeMeta !== false) {
    const typeIssues = checkTypeMeta(raw);
    if (typeIssues.length > 0) return fail(typeIssues);
  }
  const decoded = PodSchema.safeParse(raw, { reportInput: true });
  if (!decoded.success) return fail(decoded.error.issues.map(zodIssue));
  const pod = options.applyDefaults === false ? decoded.data : applyPodDefaults(decoded.data);
  if (options.validate !== false) {
    const issues = validatePod(pod);
    if (issues.length > 0) return fail(issues);
  }
  return { ok: true, pod };
}

function checkTypeMeta(raw: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const { kind, apiVersion } = raw;
  if (kind === undefined || kind === '') issues.push({ path: 'kind', reason: "Required value: Object 'Kind' is missing" });
  else if (kind !== 'Pod') issues.push({ path: 'kind', reason: `Invalid value ${JSON.stringify(kind)}: must be "Pod"` });
  if (apiVersion === undefined || apiVersion === '') issues.push({ path: 'apiVersion', reason: 'Required value' });
  else if (apiVersion !== 'v1') issues.push({ path: 'apiVersion', reason: `Invalid value ${JSON.stringify(apiVersion)}: must be "v1"` });
  return issues;
}

/**
 * Deepest nesting of arrays and objects an API object may have. Upstream's decoders (Go's
 * encoding/json under sigs.k8s.io/json and sigs.k8s.io/yaml) refuse more than 10 000 levels
 * (`maxNestingDepth`, "exceeded max depth"); V8's structuredClone and JSON.stringify overflow the
 * stack at about 2 000, so we stop at 1 000. Real pods nest fewer than 30 levels.
 */
export const MAX_NESTING_DEPTH = 1_000;

const PATH_SEGMENTS_SHOWN = 8;

/**
 * The path (formatted, its first segments then `…`) of the first value nested deeper than `max`
 * levels, or undefined. Iterative: the recursive walks after it (stripNulls, zod, structuredClone)
 * only ever see objects within the limit, so they cannot overflow the stack.
 */
export function findTooDeep(value: unknown, max: number): string | undefined {
  const stack: Array<{ value: unknown; depth: number; path: PropertyKey[] }> = [{ value, depth: 0, path: [] }];
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return undefined;
    if (typeof top.value !== 'object' || top.value === null) continue;
    const depth = top.depth + 1;
    if (depth > max) return `${formatPath(top.path)}…`;
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(top.value) ? top.value.map((v, i) => [i, v]) : Object.entries(top.value);
    for (const [key, child] of entries) {
      if (typeof child === 'object' && child !== null) {
        // Only the first few segments are kept: copying a 10 000-long path at every level is quadratic.
        stack.push({ value: child, depth, path: top.path.length < PATH_SEGMENTS_SHOWN ? [...top.path, key] : top.path });
      }
    }
  }
}

/**
 * Whether `[`/`{` in YAML or JSON text nest deeper than `max` outside double-quoted strings, from
 * one linear scan: lets a caller refuse deep flow nesting before a recursive parser sees it.
 * Brackets in plain or single-quoted scalars are counted too: only a scalar holding more than `max`
 * unclosed brackets could be refused wrongly.
 */
export function flowNestingExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      // A backslash escapes the next character.
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return false;
}

/** Go's JSON/YAML decoding treats `null` as "not set"; do the same so `creationTimestamp: null` is fine. */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) if (child !== null) out[key] = stripNulls(child);
    return out;
  }
  return value;
}

// Fields whose keys are data (resource names, label keys), printed as `limits[cpu]` like upstream.
const MAP_FIELDS = new Set([
  'labels',
  'annotations',
  'limits',
  'requests',
  'overhead',
  'nodeSelector',
  'volumeAttributes',
  'allocatedResources',
]);

/** Formats a zod path the Kubernetes way: `spec.containers[0].resources.limits[nvidia.com/gpu]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  let previous: PropertyKey | undefined;
  for (const part of path) {
    const inMap = typeof previous === 'string' && MAP_FIELDS.has(previous);
    previous = part;
    if (typeof part === 'number' || inMap) out += `[${String(part)}]`;
    else if (typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) out += out === '' ? part : `.${part}`;
    else out += `[${String(part)}]`;
  }
  return out;
}

function zodIssue(issue: z.core.$ZodIssue): ValidationIssue {
  const path = formatPath(issue.path);
  const input = (issue as { input?: unknown }).input;
  if (issue.code === 'invalid_type') {
    if (input === undefined) return { path, reason: 'Required value' };
    return { path, reason: `Invalid value ${show(input)}: expected ${expectedName(issue.expected)}, got ${describe(input)}` };
  }
  if (issue.code === 'invalid_union') {
    return { path, reason: `Invalid value ${show(input)}: expected an integer or a string, got ${describe(input)}` };
  }
  return { path, reason: input === undefined ? issue.message : `Invalid value ${show(input)}: ${issue.message}` };
}

function expectedName(expected: string): string {
  // Every numeric field of these objects is an integer (int32/int64 upstream).
  if (expected === 'int' || expected === 'number') return 'an integer';
  if (expected === 'object' || expected === 'array' || expected === 'record') return `an ${expected === 'record' ? 'object' : expected}`;
  return `a ${expected}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return 'a fractional number';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
