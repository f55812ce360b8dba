// The two-way strategic-merge diff of apimachinery's strategicpatch (CreateTwoWayMergePatch with
// SetElementOrder), written from its documented semantics over plain JSON values. Struct tags
// become data: a PatchMeta tree says which lists merge, by which key, and which keep keys.
import { ApiError } from '../errors.js';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

/** How one field is patched (apimachinery: the `patchStrategy` and `patchMergeKey` struct tags). */
export interface PatchMeta {
  /**
   * Lists: `merge` diffs item by item (by `mergeKey` for lists of objects, by value for lists of
   * scalars); anything else is atomic (replaced whole when it differs). Objects: `replace` sends the
   * modified object whole; by default an object merges per key.
   */
  readonly strategy?: 'merge' | 'replace';
  /** The key identifying an item of a merged list of objects (`type`, `name`, `uid`, `ip` …). */
  readonly mergeKey?: string;
  /** `retainKeys`: the patch lists the keys to keep (`$retainKeys`), so the server drops the others. */
  readonly retainKeys?: boolean;
  /** The fields of this object, or of each item of this list. Fields not listed have no metadata. */
  readonly fields?: Readonly<Record<string, PatchMeta>>;
}

const DIRECTIVE = '$patch';
const DELETE = 'delete';
const RETAIN_KEYS = '$retainKeys';
const SET_ELEMENT_ORDER = '$setElementOrder';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

const fail = (message: string): never => {
  throw new ApiError('INVALID_PATCH', `cannot build a strategic merge patch: ${message}`);
};

type Kind = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean';

function kindOf(value: Json): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as 'object' | 'string' | 'number' | 'boolean';
}

const isObject = (value: Json): value is JsonObject => kindOf(value) === 'object';

/** Own fields only: patch keys come from API objects, where `__proto__` is just a name. */
const has = (object: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);
const newObject = (): JsonObject => Object.create(null) as JsonObject;

function fieldMeta(meta: PatchMeta | undefined, key: string): PatchMeta | undefined {
  const fields = meta?.fields;
  return fields !== undefined && Object.prototype.hasOwnProperty.call(fields, key) ? fields[key] : undefined;
}

export function jsonEqual(a: Json, b: Json): boolean {
  if (a === b) return true;
  const kind = kindOf(a);
  if (kind !== kindOf(b)) return false;
  if (kind === 'array') {
    const x = a as Json[];
    const y = b as Json[];
    return x.length === y.length && x.every((v, i) => jsonEqual(v, y[i] as Json));
  }
  if (kind !== 'object') return false;
  const x = a as JsonObject;
  const y = b as JsonObject;
  const keys = Object.keys(x);
  return keys.length === Object.keys(y).length && keys.every((k) => has(y, k) && jsonEqual(x[k] as Json, y[k] as Json));
}

/** Go's `fmt.Sprintf("%v", v)` for a JSON scalar: what apimachinery sorts and compares by. */
function goString(value: Json | undefined): string {
  if (value === null || value === undefined) return '<nil>';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const byGoString = (a: Json | undefined, b: Json | undefined): number => {
  const x = goString(a);
  const y = goString(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Go's insertion-sort cut-off in sort.Sort (pdqsort's maxInsertion). */
const GO_MAX_INSERTION = 12;

/**
 * A sorted copy, as apimachinery's sort.Sort with a "less or equal" Less leaves it: on up to 12
 * items Go runs an insertion sort, which moves each item before the equal ones (merge keys that
 * repeat, like two `InternalIP` addresses, come out reversed, and that order shows in the patch).
 * Longer lists are sorted stably, which matches Go whenever the keys are distinct.
 */
function goSort<T extends Json>(list: readonly T[], key: (item: T) => Json): T[] {
  const s = [...list];
  if (s.length > GO_MAX_INSERTION) return s.sort((a, b) => byGoString(key(a), key(b)));
  for (let i = 1; i < s.length; i++) {
    for (let j = i; j > 0 && byGoString(key(s[j] as T), key(s[j - 1] as T)) <= 0; j--) {
      [s[j], s[j - 1]] = [s[j - 1] as T, s[j] as T];
    }
  }
  return s;
}
const self = (v: Json): Json => v;

/**
 * The diff of two objects (apimachinery diffMaps): added and changed keys with their new value
 * (objects recursively, lists by their strategy), removed keys as `null`, and `$retainKeys` when
 * the enclosing list or object asks for it.
 */
export function diffMaps(original: JsonObject, modified: JsonObject, meta: PatchMeta | undefined, buildRetainKeys: boolean): JsonObject {
  const patch = newObject();
  const retained: string[] = [];
  for (const key of Object.keys(modified)) {
    const next = modified[key] as Json;
    if (buildRetainKeys && next !== null) retained.push(key);
    if (!has(original, key)) {
      patch[key] = next;
      continue;
    }
    const prev = original[key] as Json;
    if (key === DIRECTIVE) {
      if (typeof prev !== 'string' || typeof next !== 'string') fail(`invalid value for ${DIRECTIVE}`);
      if (prev !== next) patch[key] = next;
      continue;
    }
    if (kindOf(prev) !== kindOf(next)) {
      patch[key] = next;
    } else if (isObject(prev)) {
      diffObjectField(key, prev, next as JsonObject, fieldMeta(meta, key), patch);
    } else if (Array.isArray(prev)) {
      diffListField(key, prev, next as Json[], fieldMeta(meta, key), patch);
    } else if (prev !== next) {
      patch[key] = next;
    }
  }
  for (const key of Object.keys(original)) {
    if (!has(modified, key)) patch[key] = null;
  }
  if (retained.length > 0 && (Object.keys(patch).length > 0 || hasAdditionalField(original, modified))) {
    patch[RETAIN_KEYS] = goSort(retained, self);
  }
  return patch;
}

/** Whether `original` has a non-null key that `modified` lacks (it must be cleared by `$retainKeys`). */
function hasAdditionalField(original: JsonObject, modified: JsonObject): boolean {
  return Object.keys(original).some((key) => original[key] !== null && !has(modified, key));
}

function diffObjectField(key: string, prev: JsonObject, next: JsonObject, meta: PatchMeta | undefined, patch: JsonObject): void {
  // apimachinery sends a `replace` object whole, even unchanged.
  if (meta?.strategy === 'replace') {
    patch[key] = next;
    return;
  }
  const sub = diffMaps(prev, next, meta, meta?.retainKeys === true);
  if (Object.keys(sub).length > 0) patch[key] = sub;
}

function diffListField(key: string, prev: Json[], next: Json[], meta: PatchMeta | undefined, patch: JsonObject): void {
  if (meta?.strategy !== 'merge') {
    if (!jsonEqual(prev, next)) patch[key] = next;
    return;
  }
  const { items, deletions, order } = diffLists(key, prev, next, meta);
  if (items.length > 0) patch[key] = items;
  if (deletions.length > 0) patch[`${DELETE_FROM_PRIMITIVE_LIST}/${key}`] = deletions;
  if (order.length > 0) patch[`${SET_ELEMENT_ORDER}/${key}`] = order;
}

interface ListDiff {
  items: Json[];
  deletions: Json[];
  order: Json[];
}

/** The kind shared by every item of the lists; lists of lists and mixed lists have no strategic diff. */
function itemKind(field: string, ...lists: Json[][]): Kind {
  let kind: Kind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = kindOf(item);
      if (k === 'array') fail(`${field}: lists of lists are not supported`);
      if (kind !== undefined && k !== kind) fail(`${field}: list items are not all of one type`);
      kind = k;
    }
  }
  return kind ?? fail(`${field}: no items in any list`);
}

function diffLists(field: string, original: Json[], modified: Json[], meta: PatchMeta): ListDiff {
  if (original.length === 0) return { items: modified.length === 0 ? [] : modified, deletions: [], order: [] };
  if (itemKind(field, original, modified) === 'object') {
    return diffListsOfObjects(field, original as JsonObject[], modified as JsonObject[], meta);
  }
  const { additions, deletions } = diffListsOfScalars(original, modified);
  const items = orderLike(additions, modified, (v) => v);
  // apimachinery sorts `original` in place before comparing it with `modified`: an unchanged list
  // that is not sorted still gets an order directive. Matched on purpose.
  const sortedOriginal = goSort(original, self);
  const changed = deletions.length > 0 || !jsonEqual(sortedOriginal, modified);
  return { items, deletions, order: changed ? modified : [] };
}

function mergeKeyOf(field: string, item: JsonObject, mergeKey: string): Json {
  if (mergeKey === '' || !has(item, mergeKey)) fail(`${field}: an item has no merge key "${mergeKey}"`);
  return item[mergeKey] as Json;
}

function diffListsOfObjects(field: string, original: JsonObject[], modified: JsonObject[], meta: PatchMeta): ListDiff {
  const mergeKey = meta.mergeKey ?? '';
  const keyOf = (item: JsonObject): Json => mergeKeyOf(field, item, mergeKey);
  const prevSorted = goSort(original, keyOf);
  const nextSorted = goSort(modified, keyOf);
  const changes: JsonObject[] = [];
  const deletions: JsonObject[] = [];
  let i = 0;
  let j = 0;
  while (i < prevSorted.length || j < nextSorted.length) {
    const prev = prevSorted[i];
    const next = nextSorted[j];
    const cmp = prev === undefined ? 1 : next === undefined ? -1 : byGoString(keyOf(prev), keyOf(next));
    if (cmp === 0 && prev !== undefined && next !== undefined) {
      const sub = diffMaps(prev, next, meta, meta.retainKeys === true);
      if (Object.keys(sub).length > 0) {
        sub[mergeKey] = keyOf(next);
        changes.push(sub);
      }
      i++;
      j++;
    } else if (cmp > 0 && next !== undefined) {
      changes.push(next);
      j++;
    } else if (prev !== undefined) {
      const directive = newObject();
      directive[mergeKey] = keyOf(prev);
      directive[DIRECTIVE] = DELETE;
      deletions.push(directive);
      i++;
    }
  }
  const kept = changes.filter((c) => c[DIRECTIVE] !== DELETE);
  const items: Json[] = [...orderLike(kept, modified, keyOf), ...changes.filter((c) => c[DIRECTIVE] === DELETE), ...deletions];
  const sameOrder = original.length === modified.length && modified.every((m, n) => keyOf(m) === keyOf(original[n] as JsonObject));
  const order =
    items.length > 0 || !sameOrder
      ? modified.map((m) => {
          const entry = newObject();
          entry[mergeKey] = keyOf(m);
          return entry;
        })
      : [];
  return { items, deletions: [], order };
}

/** Sorts `items` stably by where their identity first appears in `order` (apimachinery normalizeSliceOrder). */
function orderLike<T extends Json>(items: T[], order: readonly Json[], identity: (item: T) => Json): T[] {
  const ids = order.map((o) => identity(o as T));
  const indexOf = (item: T): number => {
    const id = identity(item);
    return ids.findIndex((x) => (isObject(x) || Array.isArray(x) ? jsonEqual(x, id) : x === id));
  };
  return items
    .map((item, n) => ({ item, n, at: indexOf(item) }))
    .sort((a, b) => (a.at >= 0 && b.at >= 0 && a.at !== b.at ? a.at - b.at : a.n - b.n))
    .map((e) => e.item);
}

/** Additions (in sorted order) and deletions of two scalar lists compared as sorted multisets. */
function diffListsOfScalars(original: Json[], modified: Json[]): { additions: Json[]; deletions: Json[] } {
  const prev = goSort(original, self);
  const next = goSort(modified, self);
  const additions: Json[] = [];
  const deletions: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < prev.length || j < next.length) {
    const cmp = i >= prev.length ? 1 : j >= next.length ? -1 : byGoString(prev[i], next[j]);
    if (cmp === 0) {
      i++;
      j++;
    } else if (cmp > 0) {
      additions.push(next[j++] as Json);
    } else {
      deletions.push(prev[i++] as Json);
    }
  }
  return { additions, deletions: deduplicateScalars(deletions) };
}

/** apimachinery deduplicateScalars, whose swap-from-the-end order shows in the patch. */
function deduplicateScalars(list: Json[]): Json[] {
  const s = [...list];
  let last = s.length - 1;
  for (let i = 0; i < last; i++) {
    for (let j = i + 1; j <= last; j++) {
      if (s[i] === s[j]) {
        s[j] = s[last] as Json;
        s.length = last;
        last--;
        j--;
      }
    }
  }
  return s;
}

/** A copy with every object's keys sorted: Go marshals maps that way, so the bytes match upstream. */
export function sortKeysDeep(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeysDeep(value[k] as Json)]),
  ) as JsonObject;
}
