// What FakeKubeClient does with objects: paths, selectors, patches — a small model of the API server.
import { KubeClientError } from '../errors.js';

export type JsonObject = Record<string, unknown>;

/** `/api/v1/namespaces/ns/pods/name` → its parts; `/api/v1/pods` (all namespaces) has no namespace. */
export interface ApiPath {
  /** `/api/v1` or `/apis/<group>/<version>`. */
  prefix: string;
  namespace: string | undefined;
  resource: string;
  name: string | undefined;
  subresource: string | undefined;
}

export function parseApiPath(path: string): ApiPath | undefined {
  const parts = path.replace(/\?.*$/, '').split('/').filter(Boolean);
  let i: number;
  if (parts[0] === 'api' && parts.length >= 3) i = 2;
  else if (parts[0] === 'apis' && parts.length >= 4) i = 3;
  else return undefined;
  const prefix = `/${parts.slice(0, i).join('/')}`;
  let namespace: string | undefined;
  if (parts[i] === 'namespaces' && parts.length >= i + 3) {
    namespace = parts[i + 1];
    i += 2;
  }
  const resource = parts[i];
  if (resource === undefined) return undefined;
  return { prefix, namespace, resource, name: parts[i + 1], subresource: parts[i + 2] };
}

export const objectPath = (p: ApiPath, name: string): string =>
  `${p.prefix}${p.namespace === undefined ? '' : `/namespaces/${p.namespace}`}/${p.resource}/${name}`;

export function fieldValue(obj: unknown, dotted: string): string {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (typeof cur !== 'object' || cur === null) return '';
    cur = (cur as JsonObject)[part];
  }
  return cur === undefined || cur === null ? '' : String(cur as string | number | boolean);
}

/** Field selectors the way the API server reads them: `a=b`, `a==b`, `a!=b`, comma means AND; a missing field is "". */
export function matchesFieldSelector(obj: unknown, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') return true;
  return selector.split(',').every((term) => {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (m === null) throw new KubeClientError('API_STATUS', `invalid field selector ${term}`, { statusCode: 400, reason: 'BadRequest' });
    const [, field = '', op, value = ''] = m;
    const actual = fieldValue(obj, field);
    return op === '!=' ? actual !== value : actual === value;
  });
}

/** Equality-based label selectors: `k=v`, `k==v`, `k!=v`, `k`, `!k`, comma means AND. */
export function matchesLabelSelector(obj: unknown, selector: string | undefined): boolean {
  if (selector === undefined || selector === '') return true;
  const labels = ((obj as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {}) as Record<string, string>;
  return selector.split(',').every((raw) => {
    const term = raw.trim();
    if (term.startsWith('!')) return !(term.slice(1) in labels);
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term);
    if (m === null) return term in labels;
    const [, key = '', op, value = ''] = m;
    return op === '!=' ? labels[key] !== value : labels[key] === value;
  });
}

/** RFC 7386 JSON merge patch (null deletes). Strategic merge patches are applied the same way, `$` directives dropped. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: JsonObject = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as JsonObject) } : {};
  for (const [key, value] of Object.entries(patch as JsonObject)) {
    if (key.startsWith('$')) continue;
    if (value === null) delete out[key];
    else out[key] = mergePatch(out[key], value);
  }
  return out;
}

const unescapePointer = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');

/** RFC 6902 `add`, `replace`, `remove` and `test` (enough for tests); anything else is a 400 as on the server. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  const bad = (message: string): KubeClientError => new KubeClientError('API_STATUS', message, { statusCode: 400, reason: 'BadRequest' });
  if (!Array.isArray(ops)) throw bad('json patch: the body must be an array of operations');
  const doc = structuredClone(target) as JsonObject;
  for (const op of ops as { op?: string; path?: string; value?: unknown }[]) {
    const parts = (op.path ?? '').split('/').slice(1).map(unescapePointer);
    const last = parts.pop();
    if (last === undefined) throw bad('json patch: empty path');
    let parent: unknown = doc;
    for (const part of parts) parent = (parent as JsonObject | undefined)?.[part];
    if (typeof parent !== 'object' || parent === null) throw bad(`json patch: no parent for ${op.path}`);
    const container = parent as JsonObject & unknown[];
    if (op.op === 'test') {
      if (JSON.stringify(container[last]) !== JSON.stringify(op.value)) throw bad(`json patch: test failed at ${op.path}`);
    } else if (op.op === 'remove') {
      if (Array.isArray(container)) container.splice(Number(last), 1);
      else delete container[last];
    } else if (op.op === 'add' && Array.isArray(container)) {
      container.splice(last === '-' ? container.length : Number(last), 0, op.value);
    } else if (op.op === 'add' || op.op === 'replace') {
      container[last] = op.value;
    } else throw bad(`json patch: unsupported op ${String(op.op)}`);
  }
  return doc;
}

export const metaOf = (obj: unknown): JsonObject => {
  const meta = (obj as { metadata?: unknown } | undefined)?.metadata;
  return typeof meta === 'object' && meta !== null ? (meta as JsonObject) : {};
};

export const apiError = (statusCode: number, reason: string, message: string): KubeClientError =>
  new KubeClientError('API_STATUS', `${message} (${statusCode} ${reason})`, {
    statusCode,
    reason,
    status: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message, reason, code: statusCode },
  });
