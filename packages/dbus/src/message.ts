// A D-Bus message: the fixed header (yyyyuu), the header fields a(yv), padding to 8, the body.
import { z } from 'zod';
import { DBusError } from './errors.js';
import { Reader, Writer, unmarshal } from './marshal.js';
import type { DBusValue, DBusVariant } from './marshal.js';

export type MessageType = 'method_call' | 'method_return' | 'error' | 'signal';

const TYPE_CODES: Record<MessageType, number> = { method_call: 1, method_return: 2, error: 3, signal: 4 };
const TYPES_BY_CODE: Record<number, MessageType> = { 1: 'method_call', 2: 'method_return', 3: 'error', 4: 'signal' };

/** Header flags. */
export const MessageFlag = { NoReplyExpected: 0x1, NoAutoStart: 0x2, AllowInteractiveAuthorization: 0x4 } as const;

/** The specification's limit on a whole message. */
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

export interface DBusMessage {
  type: MessageType;
  serial: number;
  flags?: number;
  path?: string;
  interface?: string;
  member?: string;
  errorName?: string;
  replySerial?: number;
  destination?: string;
  sender?: string;
  /** The body's signature; '' for no body. */
  signature?: string;
  body?: DBusValue[];
  /** How many unix fds the message carries (header field UNIX_FDS). */
  unixFds?: number;
}

// Header field codes and the type each must have.
const FIELDS = [
  [1, 'path', 'o'],
  [2, 'interface', 's'],
  [3, 'member', 's'],
  [4, 'errorName', 's'],
  [5, 'replySerial', 'u'],
  [6, 'destination', 's'],
  [7, 'sender', 's'],
  [8, 'signature', 'g'],
  [9, 'unixFds', 'u'],
] as const;

const name = z.string().min(1).max(255);
const serial = z.number().int().min(1).max(0xffffffff);
const common = {
  serial,
  flags: z.number().int().min(0).max(0xff),
  destination: name.optional(),
  sender: name.optional(),
  signature: z.string(),
  unixFds: z.number().int().min(0).optional(),
  path: z.string().optional(),
  interface: name.optional(),
  member: name.optional(),
  errorName: name.optional(),
  replySerial: serial.optional(),
};
/** The required header fields of each message type (the specification's table), checked on every message read. */
const headerSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...common, type: z.literal('method_call'), path: z.string(), member: name }),
  z.strictObject({ ...common, type: z.literal('method_return'), replySerial: serial }),
  z.strictObject({ ...common, type: z.literal('error'), errorName: name, replySerial: serial }),
  z.strictObject({ ...common, type: z.literal('signal'), path: z.string(), interface: name, member: name }),
]);

/** Encodes a message with this serial, little-endian. */
export function encodeMessage(message: DBusMessage, serialNumber: number): Buffer {
  const signature = message.signature ?? '';
  const body = new Writer();
  body.write(signature, message.body ?? []);
  const bodyBytes = body.toBuffer();
  const fields: DBusValue[] = [];
  for (const [code, key, type] of FIELDS) {
    const value = key === 'signature' ? (signature === '' ? undefined : signature) : message[key];
    if (value !== undefined) fields.push([code, { signature: type, value } satisfies DBusVariant]);
  }
  const w = new Writer();
  w.uint8('l'.charCodeAt(0));
  w.uint8(TYPE_CODES[message.type]);
  w.uint8(message.flags ?? 0);
  w.uint8(1);
  w.uint32(bodyBytes.length);
  w.uint32(serialNumber);
  w.write('a(yv)', [fields]);
  w.align(8);
  w.bytes(bodyBytes);
  if (w.length > MAX_MESSAGE_BYTES) throw new DBusError('INVALID_VALUE', `message of ${w.length} bytes (at most 128 MiB)`);
  return w.toBuffer();
}

/**
 * The length of the message at the start of `buf` once its fixed header is there (16 bytes),
 * else undefined. A length beyond the limit, a bad byte order or version is a PROTOCOL error.
 */
export function messageLength(buf: Buffer): number | undefined {
  if (buf.length < 16) return undefined;
  const endian = buf[0];
  if (endian !== 0x6c && endian !== 0x42) throw protocol(`byte order ${endian ?? 0} (only 'l' and 'B')`);
  if (buf[3] !== 1) throw protocol(`protocol version ${buf[3] ?? 0} (only 1)`);
  const le = endian === 0x6c;
  const bodyLength = le ? buf.readUInt32LE(4) : buf.readUInt32BE(4);
  const fieldsLength = le ? buf.readUInt32LE(12) : buf.readUInt32BE(12);
  const headerLength = 16 + fieldsLength + ((8 - ((16 + fieldsLength) % 8)) % 8);
  const total = headerLength + bodyLength;
  if (fieldsLength > MAX_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw protocol(`message of ${total} bytes (at most 128 MiB)`);
  return total;
}

/** Decodes one whole message (exactly `messageLength` bytes); anything malformed is a PROTOCOL DBusError. */
export function decodeMessage(buf: Buffer): DBusMessage {
  const total = messageLength(buf);
  if (total === undefined || total !== buf.length) throw protocol(`expected one whole message, got ${buf.length} bytes`);
  const endianness = buf[0] === 0x6c ? 'le' : 'be';
  const r = new Reader(buf, endianness);
  r.uint8();
  const type = TYPES_BY_CODE[r.uint8()];
  if (type === undefined) throw protocol(`message type ${buf[1] ?? 0}`);
  const flags = r.uint8();
  r.uint8();
  const bodyLength = r.uint32();
  const serialNumber = r.uint32();
  const [fields] = r.read('a(yv)');
  r.align(8);
  const header: Record<string, unknown> = { type, flags, serial: serialNumber, signature: '' };
  for (const field of fields as DBusValue[][]) {
    const [code, variant] = field as [number, DBusVariant];
    const known = FIELDS.find(([c]) => c === code);
    // Unknown fields must be accepted and ignored (the specification).
    if (known === undefined) continue;
    const [, key, expected] = known;
    if (variant.signature !== expected)
      throw protocol(`header field ${key} has type ${JSON.stringify(variant.signature)}, not ${expected}`);
    header[key] = variant.value;
  }
  const parsed = headerSchema.safeParse(header);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw protocol(`${type} header: ${issue?.path.join('.') || 'fields'}: ${issue?.message ?? 'invalid'}`);
  }
  const bodyStart = r.position;
  if (bodyStart + bodyLength !== buf.length) throw protocol('body length does not match the message');
  const message: DBusMessage = Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)) as unknown as DBusMessage;
  message.body = unmarshal(parsed.data.signature, buf.subarray(bodyStart), endianness);
  return message;
}

function protocol(message: string): DBusError {
  return new DBusError('PROTOCOL', `malformed D-Bus message: ${message}`);
}
