/**
 * The few DER (X.690) pieces a PKCS#10 request and an X.509 certificate are made of: an encoder for
 * the types they use and a reader of tag-length-value elements. Small on purpose: the kubelet needs
 * to build one CSR and read back subjects and signatures, not a general ASN.1 library.
 */

export const Tag = {
  Boolean: 0x01,
  Integer: 0x02,
  BitString: 0x03,
  OctetString: 0x04,
  Null: 0x05,
  Oid: 0x06,
  Utf8String: 0x0c,
  PrintableString: 0x13,
  UtcTime: 0x17,
  GeneralizedTime: 0x18,
  Sequence: 0x30,
  Set: 0x31,
} as const;

function lengthBytes(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One element: tag, definite length, content. */
export function tlv(tag: number, content: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(content.length), content]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(Tag.Sequence, Buffer.concat(items));

/** A SET OF: DER sorts the encoded elements. */
export const set = (...items: Uint8Array[]): Buffer => tlv(Tag.Set, Buffer.concat([...items].sort((a, b) => Buffer.compare(a, b))));

/** `[n]` constructed, context-specific: EXPLICIT wrapping, or IMPLICIT for a constructed type. */
export const contextTag = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);

/** A non-negative INTEGER from big-endian magnitude bytes (a leading 0 keeps it positive). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = Buffer.from(magnitude.subarray(start));
  const content = trimmed.length === 0 || (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(Tag.Integer, content);
}

/** An INTEGER in 0..255 (versions). */
export const smallInteger = (value: number): Buffer => unsignedInteger(Buffer.from([value & 0xff]));

/** A BIT STRING of whole bytes (no unused bits). */
export const bitString = (bytes: Uint8Array): Buffer => tlv(Tag.BitString, Buffer.concat([Buffer.from([0]), bytes]));

export const octetString = (bytes: Uint8Array): Buffer => tlv(Tag.OctetString, bytes);

export const derNull = (): Buffer => Buffer.from([Tag.Null, 0]);

export const derBoolean = (value: boolean): Buffer => Buffer.from([Tag.Boolean, 1, value ? 0xff : 0]);

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = parts;
  const bytes: number[] = [];
  for (const arc of [first * 40 + second, ...rest]) {
    const chunk: number[] = [arc & 0x7f];
    for (let n = Math.floor(arc / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(Tag.Oid, Buffer.from(bytes));
}

export function decodeOid(content: Uint8Array): string {
  const arcs: number[] = [];
  let value = 0;
  for (const byte of content) {
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    }
  }
  const [head = 0, ...rest] = arcs;
  const first = head < 80 ? Math.floor(head / 40) : 2;
  return [first, head - first * 40, ...rest].join('.');
}

/** Go's asn1 rule for a string value: PrintableString when every character allows it, else UTF8String. */
export function directoryString(value: string): Buffer {
  const printable = /^[A-Za-z0-9 '()+,\-./:=?]*$/.test(value);
  return tlv(printable ? Tag.PrintableString : Tag.Utf8String, Buffer.from(value, 'utf8'));
}

/** X.509 Time: UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function x509Time(ms: number): Buffer {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString(); // YYYY-MM-DDTHH:MM:SS.000Z
  const digits = iso.slice(0, 19).replace(/[-T:]/g, '');
  const year = Number(iso.slice(0, 4));
  return year < 2050 ? tlv(Tag.UtcTime, Buffer.from(`${digits.slice(2)}Z`)) : tlv(Tag.GeneralizedTime, Buffer.from(`${digits}Z`));
}

/** One decoded element; `raw` is the whole encoding (tag and length included). */
export interface Element {
  tag: number;
  content: Buffer;
  raw: Buffer;
}

/** Reads the element at `offset`; throws on truncated or indefinite-length input. */
export function readElement(input: Buffer, offset = 0): Element {
  const tag = input[offset];
  let lengthByte = input[offset + 1];
  if (tag === undefined || lengthByte === undefined) throw new Error('DER: truncated element');
  if ((tag & 0x1f) === 0x1f) throw new Error('DER: multi-byte tags are not supported');
  let cursor = offset + 2;
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: unsupported length encoding');
    length = 0;
    for (let i = 0; i < count; i++) {
      lengthByte = input[cursor++];
      if (lengthByte === undefined) throw new Error('DER: truncated length');
      length = length * 256 + lengthByte;
    }
  }
  const end = cursor + length;
  if (end > input.length) throw new Error('DER: element longer than its input');
  return { tag, content: input.subarray(cursor, end), raw: input.subarray(offset, end) };
}

/** The elements inside a constructed element's content, in order. */
export function readChildren(content: Buffer): Element[] {
  const children: Element[] = [];
  for (let offset = 0; offset < content.length;) {
    const child = readElement(content, offset);
    children.push(child);
    offset += child.raw.length;
  }
  return children;
}

/** Reads a whole input that must be exactly one element of `tag`. */
export function readOnly(input: Buffer, tag: number, what: string): Element {
  const element = readElement(input);
  if (element.tag !== tag) throw new Error(`${what}: expected tag 0x${tag.toString(16)}, got 0x${element.tag.toString(16)}`);
  if (element.raw.length !== input.length) throw new Error(`${what}: trailing data`);
  return element;
}
