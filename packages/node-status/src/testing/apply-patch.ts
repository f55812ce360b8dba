// A small strategic-merge *apply* for the fakes: enough for the patches this package sends
// (maps, null deletes, merged lists by key with delete and replace directives and
// $setElementOrder, scalar lists with $deleteFromPrimitiveList, atomic lists). The real API
// server is what the integration tests apply them with.
import type { PatchMeta } from '@kubelet-ts/api';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const ORDER = '$setElementOrder/';
const DELETE_PRIMITIVES = '$deleteFromPrimitiveList/';

function stripDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(isObj(v) && v['$patch'] !== undefined)).map(stripDirectives);
  if (!isObj(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith('$'))
      .map(([k, v]) => [k, stripDirectives(v)]),
  );
}

function mergeList(original: unknown[], patch: unknown[], meta: PatchMeta, order: unknown[] | undefined): unknown[] {
  if (patch.some((p) => isObj(p) && p['$patch'] === 'replace')) return stripDirectives(patch) as unknown[];
  const key = meta.mergeKey;
  let out = [...original];
  for (const item of patch) {
    if (key === undefined || !isObj(item)) {
      if (!out.includes(item)) out.push(item);
      continue;
    }
    const at = out.findIndex((o) => isObj(o) && o[key] === item[key]);
    if (item['$patch'] === 'delete') {
      if (at >= 0) out.splice(at, 1);
    } else if (at >= 0) {
      out[at] = applyMap(out[at] as Obj, item, meta);
    } else {
      out.push(stripDirectives(item));
    }
  }
  if (order !== undefined) {
    const id = (v: unknown): unknown => (key !== undefined && isObj(v) ? v[key] : v);
    const rank = (v: unknown): number => {
      const i = order.findIndex((o) => id(o) === id(v));
      return i < 0 ? order.length : i;
    };
    out = out
      .map((v, n) => ({ v, n }))
      .sort((a, b) => rank(a.v) - rank(b.v) || a.n - b.n)
      .map((e) => e.v);
  }
  return out;
}

/** `original` with `patch` applied; neither is changed. */
export function applyMap(original: Obj, patch: Obj, meta: PatchMeta | undefined): Obj {
  if (patch['$patch'] === 'replace') return stripDirectives(patch) as Obj;
  const out: Obj = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(DELETE_PRIMITIVES)) {
      const field = key.slice(DELETE_PRIMITIVES.length);
      const gone = value as unknown[];
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((v) => !gone.includes(v));
      continue;
    }
    if (key.startsWith('$')) continue;
    const fieldMeta = meta?.fields?.[key];
    const current = out[key];
    if (value === null) delete out[key];
    else if (isObj(value) && isObj(current) && fieldMeta?.strategy !== 'replace') out[key] = applyMap(current, value, fieldMeta);
    else if (Array.isArray(value) && Array.isArray(current) && fieldMeta?.strategy === 'merge') {
      out[key] = mergeList(current, value, fieldMeta, patch[`${ORDER}${key}`] as unknown[] | undefined);
    } else out[key] = stripDirectives(value);
  }
  for (const [key, value] of Object.entries(patch)) {
    // An order directive alone (a reorder without changes).
    if (!key.startsWith(ORDER)) continue;
    const field = key.slice(ORDER.length);
    const fieldMeta = meta?.fields?.[field];
    if (patch[field] === undefined && Array.isArray(out[field]) && fieldMeta !== undefined)
      out[field] = mergeList(out[field] as unknown[], [], fieldMeta, value as unknown[]);
  }
  return out;
}
