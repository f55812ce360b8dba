// Messages as sd-bus (busctl) and dbus-daemon put them on the wire, captured with `busctl capture`
// on a private dbus-daemon: the decoder reads them field for field; what we encode decodes back.
import { DBusError, decodeMessage, encodeMessage, marshal, messageLength } from './index.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// busctl's Hello (flags 0, serial 1), with the sender field the bus adds.
const HELLO =
  '6c01000100000000010000007d00000001016f00150000002f6f72672f667265656465736b746f702f44427573000000030173000500000048656c6c6f00000002017300140000006f72672e667265656465736b746f702e444275730000000006017300140000006f72672e667265656465736b746f702e444275730000000007017300040000003a312e3100000000';
// The bus's reply to it: ":1.1".
const HELLO_REPLY =
  '6c02010109000000010000003d00000006017300040000003a312e31000000000501750001000000080167000173000007017300140000006f72672e667265656465736b746f702e4442757300000000040000003a312e3100';
// busctl's GetNameOwner("org.freedesktop.DBus"), flags 4 (interactive authorization allowed).
const GET_NAME_OWNER =
  '6c01040119000000020000008d00000001016f00150000002f6f72672f667265656465736b746f702f44427573000000030173000c0000004765744e616d654f776e65720000000002017300140000006f72672e667265656465736b746f702e444275730000000006017300140000006f72672e667265656465736b746f702e4442757300000000080167000173000007017300040000003a312e3100000000140000006f72672e667265656465736b746f702e4442757300';
// The bus's NameOwnerChanged signal (sss).
const NAME_OWNER_CHANGED =
  '6c0401011d000000050000008900000001016f00150000002f6f72672f667265656465736b746f702f4442757300000002017300140000006f72672e667265656465736b746f702e444275730000000003017300100000004e616d654f776e65724368616e676564000000000000000007017300140000006f72672e667265656465736b746f702e444275730000000008016700037373730000000000000000040000003a312e31000000000000000000000000040000003a312e3100';

describe('decodeMessage', () => {
  it('reads a method call as busctl sends it', () => {
    expect(decodeMessage(hex(HELLO))).toEqual({
      type: 'method_call',
      flags: 0,
      serial: 1,
      path: '/org/freedesktop/DBus',
      interface: 'org.freedesktop.DBus',
      member: 'Hello',
      destination: 'org.freedesktop.DBus',
      sender: ':1.1',
      signature: '',
      body: [],
    });
    expect(decodeMessage(hex(GET_NAME_OWNER))).toMatchObject({
      flags: 4,
      serial: 2,
      member: 'GetNameOwner',
      signature: 's',
      body: ['org.freedesktop.DBus'],
    });
  });

  it("reads the bus's replies and signals", () => {
    expect(decodeMessage(hex(HELLO_REPLY))).toEqual({
      type: 'method_return',
      flags: 1,
      serial: 1,
      replySerial: 1,
      destination: ':1.1',
      sender: 'org.freedesktop.DBus',
      signature: 's',
      body: [':1.1'],
    });
    expect(decodeMessage(hex(NAME_OWNER_CHANGED))).toMatchObject({
      type: 'signal',
      member: 'NameOwnerChanged',
      signature: 'sss',
      body: [':1.1', '', ':1.1'],
    });
  });

  it('knows the length of a message from its first 16 bytes', () => {
    expect(messageLength(hex(HELLO).subarray(0, 15))).toBeUndefined();
    expect(messageLength(hex(HELLO).subarray(0, 16))).toBe(hex(HELLO).length);
  });

  it('encodes what it decodes', () => {
    const call = {
      type: 'method_call' as const,
      serial: 7,
      flags: 0,
      destination: 'org.freedesktop.login1',
      path: '/org/freedesktop/login1',
      interface: 'org.freedesktop.login1.Manager',
      member: 'Inhibit',
      signature: 'ssss',
      body: ['shutdown', 'kubelet', 'Kubelet needs time to handle node shutdown', 'delay'],
    };
    const bytes = encodeMessage(call, 7);
    // 'l', method call, no flags, version 1, the body's length, the serial.
    expect(bytes.subarray(0, 4).toString('hex')).toBe('6c010001');
    expect(bytes.readUInt32LE(4)).toBe(marshal('ssss', call.body).length);
    expect(bytes.readUInt32LE(8)).toBe(7);
    expect(decodeMessage(bytes)).toEqual(call);
  });

  it.each([
    ['a bad byte order', (b: Buffer) => (b[0] = 0x78)],
    ['another protocol version', (b: Buffer) => (b[3] = 2)],
    ['an unknown message type', (b: Buffer) => (b[1] = 9)],
    ['a header field of the wrong type', (b: Buffer) => (b[18] = 0x73), 'header field path has type "s"'],
    // The MEMBER field (code 3) made an unknown one (ignored, as the specification says): no member left.
    ['a method call without a member', (b: Buffer) => (b[48] = 0x0a), 'method_call header: member'],
    ['non-zero padding', (b: Buffer) => (b[62] = 1), 'non-zero padding'],
  ])('refuses %s with a PROTOCOL DBusError', (_what, corrupt, reason = 'malformed') => {
    const bytes = hex(HELLO);
    corrupt(bytes);
    let error: unknown;
    try {
      decodeMessage(bytes);
    } catch (err) {
      error = err;
    }
    expect(DBusError.is(error, 'PROTOCOL')).toBe(true);
    expect((error as Error).message).toContain(reason);
  });

  it('refuses a body length that does not match', () => {
    const bytes = hex(HELLO_REPLY);
    expect(() => decodeMessage(bytes.subarray(0, bytes.length - 1))).toThrow(expect.objectContaining({ code: 'PROTOCOL' }));
  });
});
