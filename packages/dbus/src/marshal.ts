// The D-Bus wire format (the specification's "Marshaling (Wire Format)"): every value aligned to its
// size from the start of the message, strings length-prefixed and NUL-terminated, arrays prefixed
// with their byte length (the padding before the first element not counted).
import { DBusError } from './errors.js';
import { formatType, isSingleCompleteType, parseSignature } from './signature.js';
import type { DBusType } from './signature.js';

/** A variant: the signature of one complete type and its value. */
export interface DBusVariant {
  signature: string;
  value: DBusValue;
}

/**
 * A D-Bus value in JavaScript: y n q i u h d → number, x t → bigint, b → boolean, s o g → string,
 * arrays and structs → arrays, a dict (`a{sv}`) → an array of [key, value] pairs (in wire order),
 * v → {@link DBusVariant}.
 */
export type DBusValue = number | bigint | boolean | string | DBusValue[] | DBusVariant;

export type Endianness = 'le' | 'be';

/** The specification's limit on an array's length in bytes. */
const MAX_ARRAY_BYTES = 64 * 1024 * 1024;
const OBJECT_PATH = /^\/$|^(\/[A-Za-z0-9_]+)+$/;

const ALIGN: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, h: 4, s: 4, o: 4, g: 1, v: 1 };

function alignmentOf(type: DBusType): number {
  switch (type.kind) {
    case 'basic':
      return ALIGN[type.code] ?? 1;
    case 'variant':
      return 1;
    case 'array':
    case 'dict':
      return 4;
    case 'struct':
      return 8;
  }
}

function badValue(type: DBusType, value: unknown, reason: string): DBusError {
  return new DBusError('INVALID_VALUE', `cannot marshal ${describe(value)} as ${JSON.stringify(formatType(type))}: ${reason}`);
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const INT_RANGES: Record<string, [number, number]> = {
  y: [0, 0xff],
  n: [-0x8000, 0x7fff],
  q: [0, 0xffff],
  i: [-0x80000000, 0x7fffffff],
  u: [0, 0xffffffff],
  h: [0, 0xffffffff],
};
const BIG_RANGES: Record<string, [bigint, bigint]> = {
  x: [-(1n << 63n), (1n << 63n) - 1n],
  t: [0n, (1n << 64n) - 1n],
};

/** Writes values little-endian, aligned from offset 0 of what it writes (a message starts at 0). */
export class Writer {
  #buf = Buffer.alloc(256);
  #len = 0;

  get length(): number {
    return this.#len;
  }

  toBuffer(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#len));
  }

  /** Room for n more bytes; the buffer may be replaced, so callers take the offset before touching `#buf`. */
  #reserve(n: number): number {
    if (this.#len + n > this.#buf.length) {
      const next = Buffer.alloc(Math.max(this.#buf.length * 2, this.#len + n));
      this.#buf.copy(next, 0, 0, this.#len);
      this.#buf = next;
    }
    const at = this.#len;
    this.#len += n;
    return at;
  }

  align(n: number): void {
    const pad = (n - (this.#len % n)) % n;
    const at = this.#reserve(pad);
    this.#buf.fill(0, at, this.#len);
  }

  uint8(v: number): void {
    const at = this.#reserve(1);
    this.#buf.writeUInt8(v, at);
  }

  uint32(v: number): void {
    this.align(4);
    const at = this.#reserve(4);
    this.#buf.writeUInt32LE(v, at);
  }

  /** Overwrites a uint32 written earlier (an array's length once its elements are written). */
  patchUint32(at: number, v: number): void {
    this.#buf.writeUInt32LE(v, at);
  }

  bytes(b: Buffer): void {
    const at = this.#reserve(b.length);
    b.copy(this.#buf, at);
  }

  /** Writes every value of `signature`. */
  write(signature: string, values: readonly DBusValue[]): void {
    const types = parseSignature(signature);
    if (types.length !== values.length)
      throw new DBusError('INVALID_VALUE', `signature ${JSON.stringify(signature)} has ${types.length} types, got ${values.length} values`);
    types.forEach((t, i) => this.value(t, values[i] as DBusValue));
  }

  value(type: DBusType, value: DBusValue): void {
    switch (type.kind) {
      case 'basic':
        return this.#basic(type, value);
      case 'variant': {
        if (typeof value !== 'object' || Array.isArray(value) || typeof value.signature !== 'string')
          throw badValue(type, value, 'a variant is { signature, value }');
        if (!isSingleCompleteType(value.signature)) throw badValue(type, value, 'a variant holds one complete type');
        this.#string('g', value.signature);
        const [inner] = parseSignature(value.signature);
        this.value(inner as DBusType, value.value);
        return;
      }
      case 'array':
      case 'dict': {
        if (!Array.isArray(value)) throw badValue(type, value, 'not an array');
        this.uint32(0);
        const lengthAt = this.#len - 4;
        const elementAlign = type.kind === 'dict' ? 8 : alignmentOf(type.element);
        this.align(elementAlign);
        const start = this.#len;
        for (const element of value) {
          if (type.kind === 'dict') {
            if (!Array.isArray(element) || element.length !== 2) throw badValue(type, element, 'a dict entry is [key, value]');
            this.align(8);
            this.value(type.key, element[0] as DBusValue);
            this.value(type.value, element[1] as DBusValue);
          } else {
            this.value(type.element, element);
          }
        }
        const bytes = this.#len - start;
        if (bytes > MAX_ARRAY_BYTES) throw badValue(type, '…', 'an array is at most 64 MiB');
        this.patchUint32(lengthAt, bytes);
        return;
      }
      case 'struct': {
        if (!Array.isArray(value) || value.length !== type.fields.length)
          throw badValue(type, value, `a struct is an array of ${type.fields.length} values`);
        this.align(8);
        type.fields.forEach((f, i) => this.value(f, value[i] as DBusValue));
        return;
      }
    }
  }

  #basic(type: DBusType & { kind: 'basic' }, value: DBusValue): void {
    const { code } = type;
    switch (code) {
      case 'b':
        if (typeof value !== 'boolean') throw badValue(type, value, 'not a boolean');
        return this.uint32(value ? 1 : 0);
      case 'd': {
        if (typeof value !== 'number') throw badValue(type, value, 'not a number');
        this.align(8);
        const at = this.#reserve(8);
        this.#buf.writeDoubleLE(value, at);
        return;
      }
      case 'x':
      case 't': {
        const [min, max] = BIG_RANGES[code] as [bigint, bigint];
        const v = typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
        if (typeof v !== 'bigint' || v < min || v > max) throw badValue(type, value, 'out of range');
        this.align(8);
        const at = this.#reserve(8);
        if (code === 'x') this.#buf.writeBigInt64LE(v, at);
        else this.#buf.writeBigUInt64LE(v, at);
        return;
      }
      case 's':
      case 'o':
      case 'g':
        if (typeof value !== 'string') throw badValue(type, value, 'not a string');
        return this.#string(code, value);
      default: {
        const [min, max] = INT_RANGES[code] as [number, number];
        if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
          throw badValue(type, value, 'out of range');
        const size = ALIGN[code] as number;
        this.align(size);
        const at = this.#reserve(size);
        if (code === 'y') this.#buf.writeUInt8(value, at);
        else if (code === 'n') this.#buf.writeInt16LE(value, at);
        else if (code === 'q') this.#buf.writeUInt16LE(value, at);
        else if (code === 'i') this.#buf.writeInt32LE(value, at);
        else this.#buf.writeUInt32LE(value, at);
      }
    }
  }

  #string(code: 's' | 'o' | 'g', value: string): void {
    const type: DBusType = { kind: 'basic', code };
    if (value.includes('\0')) throw badValue(type, value, 'contains NUL');
    if (code === 'o' && !OBJECT_PATH.test(value)) throw badValue(type, value, 'not an object path');
    if (code === 'g') parseSignature(value);
    const bytes = Buffer.from(value, 'utf8');
    if (code === 'g') {
      this.uint8(bytes.length);
    } else {
      this.uint32(bytes.length);
    }
    this.bytes(bytes);
    this.uint8(0);
  }
}

/**
 * Reads values of either byte order from a buffer whose offset 0 is the start of the message.
 * Every malformed input is a PROTOCOL DBusError, never a crash or an out-of-range read.
 */
export class Reader {
  #pos: number;
  readonly #buf: Buffer;
  readonly #le: boolean;

  constructor(buf: Buffer, endianness: Endianness, start = 0) {
    this.#buf = buf;
    this.#le = endianness === 'le';
    this.#pos = start;
  }

  get position(): number {
    return this.#pos;
  }

  #need(n: number): number {
    if (this.#pos + n > this.#buf.length) throw protocol(`truncated: ${n} bytes wanted at offset ${this.#pos} of ${this.#buf.length}`);
    const at = this.#pos;
    this.#pos += n;
    return at;
  }

  align(n: number): void {
    const pad = (n - (this.#pos % n)) % n;
    const at = this.#need(pad);
    // The specification requires padding bytes to be zero.
    for (let i = at; i < at + pad; i++) if (this.#buf[i] !== 0) throw protocol(`non-zero padding at offset ${i}`);
  }

  uint8(): number {
    return this.#buf.readUInt8(this.#need(1));
  }

  uint32(): number {
    this.align(4);
    const at = this.#need(4);
    return this.#le ? this.#buf.readUInt32LE(at) : this.#buf.readUInt32BE(at);
  }

  /** Reads every value of `signature`. */
  read(signature: string): DBusValue[] {
    let types: DBusType[];
    try {
      types = parseSignature(signature);
    } catch (err) {
      throw protocol(`bad signature ${JSON.stringify(signature)}`, err);
    }
    return types.map((t) => this.value(t, 0));
  }

  value(type: DBusType, depth: number): DBusValue {
    // Variants may nest signatures afresh: the specification's total limit is 64 containers.
    if (depth > 64) throw protocol('values nested deeper than 64');
    switch (type.kind) {
      case 'basic':
        return this.#basic(type.code);
      case 'variant': {
        const signature = this.#string('g');
        if (!isSingleCompleteType(signature)) throw protocol(`a variant's signature ${JSON.stringify(signature)} is not one complete type`);
        const [inner] = parseSignature(signature);
        return { signature, value: this.value(inner as DBusType, depth + 1) };
      }
      case 'array':
      case 'dict': {
        const bytes = this.uint32();
        if (bytes > MAX_ARRAY_BYTES) throw protocol(`array of ${bytes} bytes (at most 64 MiB)`);
        this.align(type.kind === 'dict' ? 8 : alignmentOf(type.element));
        const end = this.#pos + bytes;
        if (end > this.#buf.length) throw protocol(`array of ${bytes} bytes runs past the message`);
        const out: DBusValue[] = [];
        while (this.#pos < end) {
          if (type.kind === 'dict') {
            this.align(8);
            out.push([this.value(type.key, depth + 1), this.value(type.value, depth + 1)]);
          } else {
            out.push(this.value(type.element, depth + 1));
          }
        }
        if (this.#pos !== end) throw protocol('array elements overrun its length');
        return out;
      }
      case 'struct':
        this.align(8);
        return type.fields.map((f) => this.value(f, depth + 1));
    }
  }

  #basic(code: string): DBusValue {
    switch (code) {
      case 'y':
        return this.uint8();
      case 'b': {
        const v = this.uint32();
        if (v > 1) throw protocol(`boolean ${v} (only 0 and 1)`);
        return v === 1;
      }
      case 'n':
      case 'q': {
        this.align(2);
        const at = this.#need(2);
        if (code === 'n') return this.#le ? this.#buf.readInt16LE(at) : this.#buf.readInt16BE(at);
        return this.#le ? this.#buf.readUInt16LE(at) : this.#buf.readUInt16BE(at);
      }
      case 'i': {
        this.align(4);
        const at = this.#need(4);
        return this.#le ? this.#buf.readInt32LE(at) : this.#buf.readInt32BE(at);
      }
      case 'u':
      case 'h':
        return this.uint32();
      case 'x':
      case 't': {
        this.align(8);
        const at = this.#need(8);
        if (code === 'x') return this.#le ? this.#buf.readBigInt64LE(at) : this.#buf.readBigInt64BE(at);
        return this.#le ? this.#buf.readBigUInt64LE(at) : this.#buf.readBigUInt64BE(at);
      }
      case 'd': {
        this.align(8);
        const at = this.#need(8);
        return this.#le ? this.#buf.readDoubleLE(at) : this.#buf.readDoubleBE(at);
      }
      default:
        return this.#string(code as 's' | 'o' | 'g');
    }
  }

  #string(code: 's' | 'o' | 'g'): string {
    const length = code === 'g' ? this.uint8() : this.uint32();
    const at = this.#need(length + 1);
    if (this.#buf[at + length] !== 0) throw protocol(`string at offset ${at} is not NUL-terminated`);
    const bytes = this.#buf.subarray(at, at + length);
    if (bytes.includes(0)) throw protocol(`string at offset ${at} contains NUL`);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (err) {
      throw protocol(`string at offset ${at} is not UTF-8`, err);
    }
    if (code === 'o' && !OBJECT_PATH.test(text)) throw protocol(`${JSON.stringify(text)} is not an object path`);
    if (code === 'g') {
      try {
        parseSignature(text);
      } catch (err) {
        throw protocol(`${JSON.stringify(text)} is not a signature`, err);
      }
    }
    return text;
  }
}

function protocol(message: string, cause?: unknown): DBusError {
  return new DBusError('PROTOCOL', `malformed D-Bus data: ${message}`, cause === undefined ? {} : { cause });
}

/** Marshals `values` of `signature` as a message body (little-endian, from offset 0). */
export function marshal(signature: string, values: readonly DBusValue[]): Buffer {
  const w = new Writer();
  w.write(signature, values);
  return w.toBuffer();
}

/** Unmarshals a whole body of `signature`; bytes left over are a PROTOCOL error. */
export function unmarshal(signature: string, body: Buffer, endianness: Endianness = 'le'): DBusValue[] {
  const r = new Reader(body, endianness);
  const values = r.read(signature);
  if (r.position !== body.length)
    throw protocol(`${body.length - r.position} bytes left after the body of signature ${JSON.stringify(signature)}`);
  return values;
}
