import { DBusError } from './errors.js';

/** One complete type of a D-Bus signature, parsed. */
export type DBusType =
  | { kind: 'basic'; code: BasicCode }
  | { kind: 'variant' }
  | { kind: 'array'; element: DBusType }
  | { kind: 'dict'; key: DBusType & { kind: 'basic' }; value: DBusType }
  | { kind: 'struct'; fields: DBusType[] };

/** y byte, b boolean, n/q int16/uint16, i/u int32/uint32, x/t int64/uint64, d double, h unix fd index, s string, o object path, g signature. */
export type BasicCode = 'y' | 'b' | 'n' | 'q' | 'i' | 'u' | 'x' | 't' | 'd' | 'h' | 's' | 'o' | 'g';

const BASIC = new Set<string>(['y', 'b', 'n', 'q', 'i', 'u', 'x', 't', 'd', 'h', 's', 'o', 'g']);
/** The specification's limits: 255 bytes per signature, 32 nested arrays and 32 nested structs. */
const MAX_SIGNATURE_LENGTH = 255;
const MAX_DEPTH = 32;

/** Parses a signature into its complete types (`"sb"` → two types); throws INVALID_SIGNATURE. */
export function parseSignature(signature: string): DBusType[] {
  if (signature.length > MAX_SIGNATURE_LENGTH) throw invalid(signature, 'longer than 255 bytes');
  const types: DBusType[] = [];
  let pos = 0;
  const next = (arrays: number, structs: number): DBusType => {
    const c = signature[pos++];
    if (c === undefined) throw invalid(signature, 'ends inside a type');
    if (BASIC.has(c)) return { kind: 'basic', code: c as BasicCode };
    if (c === 'v') return { kind: 'variant' };
    if (c === 'a') {
      if (arrays >= MAX_DEPTH) throw invalid(signature, 'arrays nested deeper than 32');
      if (signature[pos] === '{') {
        pos++;
        const key = next(arrays + 1, structs + 1);
        if (key.kind !== 'basic') throw invalid(signature, 'a dict entry key must be a basic type');
        const value = next(arrays + 1, structs + 1);
        if (signature[pos++] !== '}') throw invalid(signature, 'a dict entry has exactly two types');
        return { kind: 'dict', key, value };
      }
      return { kind: 'array', element: next(arrays + 1, structs) };
    }
    if (c === '(') {
      if (structs >= MAX_DEPTH) throw invalid(signature, 'structs nested deeper than 32');
      const fields: DBusType[] = [];
      while (signature[pos] !== ')') {
        if (pos >= signature.length) throw invalid(signature, 'unclosed struct');
        fields.push(next(arrays, structs + 1));
      }
      pos++;
      if (fields.length === 0) throw invalid(signature, 'empty struct');
      return { kind: 'struct', fields };
    }
    throw invalid(signature, `unexpected ${JSON.stringify(c)} at ${pos - 1}`);
  };
  while (pos < signature.length) types.push(next(0, 0));
  return types;
}

/** The signature of one complete type (the inverse of parseSignature). */
export function formatType(type: DBusType): string {
  switch (type.kind) {
    case 'basic':
      return type.code;
    case 'variant':
      return 'v';
    case 'array':
      return `a${formatType(type.element)}`;
    case 'dict':
      return `a{${formatType(type.key)}${formatType(type.value)}}`;
    case 'struct':
      return `(${type.fields.map(formatType).join('')})`;
  }
}

/** Whether `signature` is one complete type (what a variant holds). */
export function isSingleCompleteType(signature: string): boolean {
  try {
    return parseSignature(signature).length === 1;
  } catch {
    return false;
  }
}

function invalid(signature: string, reason: string): DBusError {
  return new DBusError('INVALID_SIGNATURE', `invalid D-Bus signature ${JSON.stringify(signature)}: ${reason}`);
}
