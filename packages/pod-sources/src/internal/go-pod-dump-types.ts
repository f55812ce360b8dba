/** One Go type of the internal Pod graph, as reflect sees it (see go-pod-layout.ts). */
export type GoTypeLayout =
  /** Fields in declaration order: [Go name, Go type, JSON name of the v1 twin or '' or ',inline']. */
  | { readonly kind: 'struct'; readonly fields: readonly (readonly [string, string, string])[] }
  | { readonly kind: 'ptr' | 'slice'; readonly elem: string }
  | { readonly kind: 'map'; readonly key: string; readonly elem: string }
  /** A scalar: 'string', 'bool', 'int32', 'int64', 'uint64', 'uint', … (named types keep their kind). */
  | { readonly kind: string };
