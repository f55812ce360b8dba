import type { GoValue } from '@kubelet-ts/common';

/** Small builders for the GoValue trees the checkpoint checksums are computed over. */
export const go = {
  string: (text: string, type = 'string'): GoValue => ({ kind: 'scalar', type, text }),
  number: (value: number, type: string): GoValue => ({ kind: 'scalar', type, text: BigInt(value).toString() }),
  struct: (type: string, fields: readonly (readonly [string, GoValue])[]): GoValue => ({ kind: 'struct', type, fields }),
  pointer: (type: string, target: GoValue | undefined): GoValue =>
    target === undefined ? { kind: 'pointer', type } : { kind: 'pointer', type, target },
  slice: (type: string, items: readonly GoValue[] | null): GoValue =>
    items === null ? { kind: 'slice', type } : { kind: 'slice', type, items },
  map: (type: string, entries: readonly (readonly [GoValue, GoValue])[]): GoValue => ({ kind: 'map', type, entries }),
};

/** The checksum field as json.Marshal writes it: the number, after the other fields. */
export function withChecksum(json: string, checksum: number): string {
  return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"checksum":${checksum}}`;
}

/** JSON object text with keys in Go's map order (sorted byte-wise), as encoding/json writes a map. */
export function goJsonMap<T>(map: Readonly<Record<string, T>>, value: (v: T) => string): string {
  const keys = Object.keys(map).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return `{${keys.map((k) => `${JSON.stringify(k)}:${value(map[k]!)}`).join(',')}}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
