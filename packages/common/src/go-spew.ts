/**
 * A Go value as go-spew sees it: every node knows its Go type name (reflect's `Type.String()`,
 * e.g. `*int64`, `core.PodSpec`, `map[string]string`). Scalars carry their already-formatted text.
 */
export type GoValue =
  | { readonly kind: 'scalar'; readonly type: string; readonly text: string }
  /** `target` undefined is a nil pointer. */
  | { readonly kind: 'pointer'; readonly type: string; readonly target?: GoValue }
  /** `items` undefined is a nil slice (an empty array is an empty, non-nil one). */
  | { readonly kind: 'slice'; readonly type: string; readonly items?: readonly GoValue[] }
  /** `entries` undefined is a nil map. Keys must be string scalars. */
  | { readonly kind: 'map'; readonly type: string; readonly entries?: readonly (readonly [GoValue, GoValue])[] }
  | { readonly kind: 'struct'; readonly type: string; readonly fields: readonly (readonly [string, GoValue])[] };

/**
 * The text `k8s.io/apimachinery/pkg/util/dump.ForHash` gives for a value: go-spew's `%#v` with
 * SortKeys, SpewKeys, DisableMethods and DisablePointerAddresses. The upstream kubelet hashes this
 * text for container hashes and static pod UIDs, so it must match byte for byte.
 */
export function spewForHash(value: GoValue): string {
  const out: string[] = [];
  format(value, false, out);
  return out.join('');
}

function format(value: GoValue, ignoreType: boolean, out: string[]): void {
  if (value.kind === 'pointer') {
    formatPointer(value, ignoreType, out);
    return;
  }
  if (!ignoreType) out.push('(', value.type, ')');
  switch (value.kind) {
    case 'scalar':
      out.push(value.text);
      return;
    case 'slice':
      if (value.items === undefined) {
        out.push('<nil>');
        return;
      }
      out.push('[');
      value.items.forEach((item, i) => {
        if (i > 0) out.push(' ');
        format(item, true, out);
      });
      out.push(']');
      return;
    case 'map':
      if (value.entries === undefined) {
        out.push('<nil>');
        return;
      }
      out.push('map[');
      sortedEntries(value.entries).forEach(([key, entry], i) => {
        if (i > 0) out.push(' ');
        format(key, true, out);
        out.push(':');
        format(entry, true, out);
      });
      out.push(']');
      return;
    case 'struct':
      out.push('{');
      value.fields.forEach(([name, field], i) => {
        if (i > 0) out.push(' ');
        out.push(name, ':');
        format(field, false, out);
      });
      out.push('}');
      return;
  }
}

// spew's formatPtr: the type (with one `*` per indirection) unless the container already printed
// it, `<*>` in that case, then the pointee without its type; a nil pointer is `(*T)<nil>` or `<nil>`.
function formatPointer(value: GoValue & { kind: 'pointer' }, ignoreType: boolean, out: string[]): void {
  if (value.target === undefined) {
    if (!ignoreType) out.push('(', value.type, ')');
    out.push('<nil>');
    return;
  }
  let indirects = 0;
  let target: GoValue | undefined = value;
  let last: GoValue = value;
  while (target !== undefined && target.kind === 'pointer') {
    indirects += 1;
    last = target;
    target = target.target;
  }
  if (target === undefined) {
    // A pointer to a nil pointer: spew names the innermost pointer type and prints <nil>.
    indirects -= 1;
    if (!ignoreType) out.push('(', '*'.repeat(indirects), last.type, ')');
    else out.push('<', '*'.repeat(indirects + countStars(last.type)), '>');
    out.push('<nil>');
    return;
  }
  if (!ignoreType) out.push('(', '*'.repeat(indirects), target.type, ')');
  else out.push('<', '*'.repeat(indirects), '>');
  format(target, true, out);
}

function countStars(type: string): number {
  return type.split('*').length - 1;
}

// spew's sortValues: integer keys by value, string keys in Go's byte-wise string order.
function sortedEntries(entries: readonly (readonly [GoValue, GoValue])[]): (readonly [GoValue, GoValue])[] {
  const text = (key: GoValue): string => (key.kind === 'scalar' ? key.text : '');
  const numeric = entries.every(([key]) => key.kind === 'scalar' && /^u?int(8|16|32|64)?$/.test(key.type));
  if (numeric)
    return [...entries].sort((a, b) => (BigInt(text(a[0])) < BigInt(text(b[0])) ? -1 : BigInt(text(a[0])) > BigInt(text(b[0])) ? 1 : 0));
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(text(a[0]), 'utf8'), Buffer.from(text(b[0]), 'utf8')));
}

/** A `[]uint8` GoValue of the bytes of `data` (how spew sees a marshalled JSON document). */
export function goByteSlice(data: Uint8Array): GoValue {
  return { kind: 'slice', type: '[]uint8', items: Array.from(data, (byte) => ({ kind: 'scalar', type: 'uint8', text: String(byte) })) };
}
