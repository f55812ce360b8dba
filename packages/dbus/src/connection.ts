import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { parseBusAddress, systemBusAddress } from './address.js';
import { DBusError } from './errors.js';
import { MessageFlag, decodeMessage, encodeMessage, messageLength } from './message.js';
import type { DBusMessage } from './message.js';
import type { DBusValue, DBusVariant } from './marshal.js';

/** The bus daemon itself. */
export const BUS_NAME = 'org.freedesktop.DBus';
export const BUS_PATH = '/org/freedesktop/DBus';
export const PROPERTIES_INTERFACE = 'org.freedesktop.DBus.Properties';

/** libdbus' and sd-bus' default method call timeout. */
export const DEFAULT_CALL_TIMEOUT_MS = 25_000;

export interface MethodCall {
  destination: string;
  path: string;
  interface?: string;
  member: string;
  /** The body's signature ('' or omitted: no arguments). */
  signature?: string;
  body?: DBusValue[];
  /** Default: the connection's `callTimeoutMs`. */
  timeoutMs?: number;
  /** `MessageFlag` bits (NoAutoStart, AllowInteractiveAuthorization). */
  flags?: number;
}

/** What a signal listener is given: the signal's sender, path, interface, member and body. */
export type SignalMessage = DBusMessage & { type: 'signal'; path: string; interface: string; member: string };

export interface SignalFilter {
  path?: string;
  interface?: string;
  member?: string;
  sender?: string;
}

/** A method call to this connection's objects and the reply its handler gives (error: throw a DBusError with `errorName`). */
export type MethodCallHandler = (
  call: DBusMessage & { type: 'method_call' },
) => Promise<{ signature?: string; body?: DBusValue[] } | undefined>;

export interface DBusConnection {
  /** The unique name the bus gave this connection (`:1.42`). */
  readonly uniqueName: string;
  /** Calls a method and resolves with its reply; an error reply rejects with REMOTE_ERROR (`errorName`), no reply in time with TIMEOUT. */
  call(call: MethodCall): Promise<DBusMessage>;
  /** org.freedesktop.DBus.Properties.Get: the property's variant. */
  getProperty(destination: string, path: string, iface: string, property: string, options?: { timeoutMs?: number }): Promise<DBusVariant>;
  /** org.freedesktop.DBus.AddMatch with the rule (`type='signal',interface='…',member='…'`). */
  addMatch(rule: string): Promise<void>;
  removeMatch(rule: string): Promise<void>;
  /** Listens for signals that pass the filter (the bus sends only what a match rule asked for); returns the removal. */
  onSignal(filter: SignalFilter, listener: (signal: SignalMessage) => void): () => void;
  /** Serves method calls to this connection (test services); without a handler, calls get UnknownMethod. */
  handleMethodCalls(handler: MethodCallHandler): void;
  /** Sends a signal from this connection. */
  emitSignal(signal: { path: string; interface: string; member: string; signature?: string; body?: DBusValue[] }): void;
  /** org.freedesktop.DBus.RequestName: 1 primary owner, 2 in queue, 3 exists, 4 already owner. */
  requestName(name: string, flags?: number): Promise<number>;
  /** Called once when the connection ends: `close()` (no error) or the bus went away / sent garbage (the error). */
  onClose(listener: (err: DBusError | undefined) => void): () => void;
  readonly closed: boolean;
  close(): void;
}

export interface ConnectBusOptions {
  /** A D-Bus server address. Default: DBUS_SYSTEM_BUS_ADDRESS, else unix:path=/run/dbus/system_bus_socket. */
  address?: string;
  /** Default deadline of each call. */
  callTimeoutMs?: number;
  /** Deadline for connecting, authenticating and Hello. Default: callTimeoutMs. */
  connectTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
}

/** A match rule from its parts, values quoted as the specification says. */
export function matchRule(parts: Readonly<Record<string, string>>): string {
  return Object.entries(parts)
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join(',');
}

/**
 * Connects to a bus: the unix socket of the address, SASL EXTERNAL with this process's uid (no
 * unix fd passing is negotiated: node's sockets cannot receive fds), then Hello.
 */
export async function connectBus(options: ConnectBusOptions = {}): Promise<DBusConnection> {
  const address = parseBusAddress(options.address ?? systemBusAddress());
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const deadlineMs = options.connectTimeoutMs ?? callTimeoutMs;
  const socket = netConnect('path' in address ? address.path : `\0${address.abstract}`);
  const where = 'path' in address ? address.path : `@${address.abstract}`;
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  try {
    const leftover = await new Promise<Buffer>((resolve, reject) => {
      timer = clock.setTimeout(() => reject(new DBusError('TIMEOUT', `D-Bus ${where}: no answer within ${deadlineMs}ms`)), deadlineMs);
      authenticate(socket, where).then(resolve, reject);
    });
    const connection = new Connection(socket, { clock, logger, callTimeoutMs, where });
    connection.receive(leftover);
    const hello = connection.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'Hello', timeoutMs: deadlineMs });
    const reply = await hello.catch((err: unknown) => {
      connection.close();
      throw err;
    });
    const [name] = replyBody(reply, 's', 'Hello');
    connection.uniqueName = name as string;
    return connection;
  } catch (err) {
    socket.destroy();
    throw DBusError.from(err, 'CONNECTION', `D-Bus ${where}: ${errorMessage(err)}`);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}

/** The body of a reply when it has this signature, else UNEXPECTED_REPLY. */
export function replyBody(reply: DBusMessage, signature: string, what: string): DBusValue[] {
  if ((reply.signature ?? '') !== signature)
    throw new DBusError(
      'UNEXPECTED_REPLY',
      `${what}: reply has signature ${JSON.stringify(reply.signature ?? '')}, expected ${JSON.stringify(signature)}`,
    );
  return reply.body ?? [];
}

/** SASL EXTERNAL (the specification's "Authentication Protocol"); resolves with bytes that came after the OK line. */
function authenticate(socket: Socket, where: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const fail = (err: DBusError): void => {
      cleanup();
      reject(err);
    };
    const onError = (err: Error): void => fail(new DBusError('CONNECTION', `D-Bus ${where}: ${err.message}`, { cause: err }));
    const onClose = (): void => fail(new DBusError('CONNECTION', `D-Bus ${where}: closed during authentication`));
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n');
      if (end < 0) {
        if (buffered.length > 4096) fail(new DBusError('AUTH_FAILED', `D-Bus ${where}: authentication line too long`));
        return;
      }
      const line = buffered.subarray(0, end).toString('latin1');
      const rest = buffered.subarray(end + 2);
      if (!/^OK [0-9a-f]{32}$/.test(line)) {
        fail(new DBusError('AUTH_FAILED', `D-Bus ${where}: SASL EXTERNAL refused: ${JSON.stringify(line.slice(0, 200))}`));
        return;
      }
      cleanup();
      socket.write('BEGIN\r\n');
      resolve(Buffer.from(rest));
    };
    const cleanup = (): void => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('close', onClose);
    };
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    const uid = String(process.getuid?.() ?? 0);
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid, 'ascii').toString('hex')}\r\n`);
  });
}

interface Pending {
  resolve(m: DBusMessage): void;
  reject(e: DBusError): void;
  timer: ReturnType<Clock['setTimeout']>;
  what: string;
}

class Connection implements DBusConnection {
  uniqueName = '';
  #socket: Socket;
  #serial = 0;
  #pending = new Map<number, Pending>();
  #signals = new Set<{ filter: SignalFilter; listener: (s: SignalMessage) => void }>();
  #closeListeners = new Set<(err: DBusError | undefined) => void>();
  #handler: MethodCallHandler | undefined;
  #buffer: Buffer = Buffer.alloc(0);
  #closed = false;
  /** Why the connection ended, for calls made after it did. */
  #closeError: DBusError | undefined;
  readonly #o: { clock: Clock; logger: Logger; callTimeoutMs: number; where: string };

  constructor(socket: Socket, o: { clock: Clock; logger: Logger; callTimeoutMs: number; where: string }) {
    this.#socket = socket;
    this.#o = o;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => this.#end(new DBusError('CONNECTION', `D-Bus ${o.where}: ${err.message}`, { cause: err })));
    socket.on('close', () => this.#end(new DBusError('CLOSED', `D-Bus ${o.where}: connection closed by the bus`)));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Frames and dispatches messages; bytes that are not D-Bus close the connection with a PROTOCOL error. */
  receive(chunk: Buffer): void {
    if (this.#closed || chunk.length === 0) return;
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    try {
      for (;;) {
        const length = messageLength(this.#buffer);
        if (length === undefined || this.#buffer.length < length) return;
        const bytes = this.#buffer.subarray(0, length);
        this.#buffer = this.#buffer.subarray(length);
        this.#dispatch(decodeMessage(bytes));
      }
    } catch (err) {
      const error = DBusError.from(err, 'PROTOCOL');
      this.#o.logger.error('Closing the D-Bus connection after a malformed message', { address: this.#o.where, err: error.message });
      this.#end(error);
    }
  }

  #dispatch(m: DBusMessage): void {
    if (m.type === 'method_return' || m.type === 'error') {
      const pending = m.replySerial === undefined ? undefined : this.#pending.get(m.replySerial);
      if (pending === undefined) return;
      this.#pending.delete(m.replySerial as number);
      this.#o.clock.clearTimeout(pending.timer);
      if ((m.unixFds ?? 0) > 0)
        pending.reject(
          new DBusError(
            'FD_PASSING_UNSUPPORTED',
            `${pending.what}: the reply carries ${m.unixFds} unix fds, which this client cannot receive`,
          ),
        );
      else if (m.type === 'error') {
        const [text] = m.body ?? [];
        pending.reject(
          new DBusError('REMOTE_ERROR', `${pending.what}: ${m.errorName ?? ''}${typeof text === 'string' ? `: ${text}` : ''}`, {
            errorName: m.errorName ?? '',
          }),
        );
      } else pending.resolve(m);
      return;
    }
    if (m.type === 'signal') {
      for (const { filter, listener } of [...this.#signals]) {
        if (filter.path !== undefined && filter.path !== m.path) continue;
        if (filter.interface !== undefined && filter.interface !== m.interface) continue;
        if (filter.member !== undefined && filter.member !== m.member) continue;
        if (filter.sender !== undefined && filter.sender !== m.sender) continue;
        try {
          listener(m as SignalMessage);
        } catch (err) {
          this.#o.logger.error('D-Bus signal listener failed', { member: m.member, err: errorMessage(err) });
        }
      }
      return;
    }
    void this.#serve(m as DBusMessage & { type: 'method_call' });
  }

  async #serve(m: DBusMessage & { type: 'method_call' }): Promise<void> {
    const wantsReply = ((m.flags ?? 0) & MessageFlag.NoReplyExpected) === 0;
    const reply = (r: Omit<DBusMessage, 'serial'>): void => {
      if (wantsReply && m.sender !== undefined) this.#send({ ...r, destination: m.sender, replySerial: m.serial });
    };
    try {
      if (m.interface === 'org.freedesktop.DBus.Peer' && m.member === 'Ping') return reply({ type: 'method_return' });
      const result = this.#handler === undefined ? undefined : await this.#handler(m);
      if (result === undefined) {
        reply({
          type: 'error',
          errorName: 'org.freedesktop.DBus.Error.UnknownMethod',
          signature: 's',
          body: [`No such method ${m.interface ?? ''}.${m.member} on ${m.path}`],
        });
        return;
      }
      reply({ type: 'method_return', signature: result.signature ?? '', body: result.body ?? [] });
    } catch (err) {
      const errorName = DBusError.is(err) && err.errorName !== '' ? err.errorName : 'org.freedesktop.DBus.Error.Failed';
      reply({ type: 'error', errorName, signature: 's', body: [errorMessage(err)] });
    }
  }

  #send(m: Omit<DBusMessage, 'serial'>): number {
    if (this.#closed) throw this.#closeError ?? new DBusError('CLOSED', `D-Bus ${this.#o.where}: connection closed`);
    this.#serial = this.#serial >= 0xffffffff ? 1 : this.#serial + 1;
    this.#socket.write(encodeMessage({ ...m, serial: this.#serial }, this.#serial));
    return this.#serial;
  }

  call(c: MethodCall): Promise<DBusMessage> {
    const what = `${c.destination} ${c.path} ${c.interface ?? ''}.${c.member}`;
    return new Promise((resolve, reject) => {
      let serial: number;
      try {
        serial = this.#send({
          type: 'method_call',
          destination: c.destination,
          path: c.path,
          ...(c.interface !== undefined ? { interface: c.interface } : {}),
          member: c.member,
          signature: c.signature ?? '',
          body: c.body ?? [],
          flags: c.flags ?? 0,
        });
      } catch (err) {
        reject(DBusError.is(err) ? err : DBusError.from(err, 'INVALID_VALUE', `${what}: ${errorMessage(err)}`));
        return;
      }
      const timeoutMs = c.timeoutMs ?? this.#o.callTimeoutMs;
      const timer = this.#o.clock.setTimeout(() => {
        this.#pending.delete(serial);
        reject(new DBusError('TIMEOUT', `${what}: no reply within ${timeoutMs}ms`));
      }, timeoutMs);
      this.#pending.set(serial, { resolve, reject, timer, what });
    });
  }

  async getProperty(
    destination: string,
    path: string,
    iface: string,
    property: string,
    options: { timeoutMs?: number } = {},
  ): Promise<DBusVariant> {
    const reply = await this.call({
      destination,
      path,
      interface: PROPERTIES_INTERFACE,
      member: 'Get',
      signature: 'ss',
      body: [iface, property],
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    });
    const [variant] = replyBody(reply, 'v', `Get ${iface}.${property}`);
    return variant as DBusVariant;
  }

  async addMatch(rule: string): Promise<void> {
    await this.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'AddMatch', signature: 's', body: [rule] });
  }

  async removeMatch(rule: string): Promise<void> {
    await this.call({ destination: BUS_NAME, path: BUS_PATH, interface: BUS_NAME, member: 'RemoveMatch', signature: 's', body: [rule] });
  }

  onSignal(filter: SignalFilter, listener: (signal: SignalMessage) => void): () => void {
    const entry = { filter, listener };
    this.#signals.add(entry);
    return () => this.#signals.delete(entry);
  }

  handleMethodCalls(handler: MethodCallHandler): void {
    this.#handler = handler;
  }

  emitSignal(s: { path: string; interface: string; member: string; signature?: string; body?: DBusValue[] }): void {
    this.#send({ type: 'signal', ...s, signature: s.signature ?? '', body: s.body ?? [] });
  }

  async requestName(name: string, flags = 0): Promise<number> {
    const reply = await this.call({
      destination: BUS_NAME,
      path: BUS_PATH,
      interface: BUS_NAME,
      member: 'RequestName',
      signature: 'su',
      body: [name, flags],
    });
    const [result] = replyBody(reply, 'u', 'RequestName');
    return result as number;
  }

  onClose(listener: (err: DBusError | undefined) => void): () => void {
    if (this.#closed) {
      listener(undefined);
      return () => undefined;
    }
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  close(): void {
    this.#end(undefined);
  }

  #end(err: DBusError | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.destroy();
    const reason = err ?? new DBusError('CLOSED', `D-Bus ${this.#o.where}: connection closed`);
    this.#closeError = reason;
    for (const [, p] of this.#pending) {
      this.#o.clock.clearTimeout(p.timer);
      p.reject(new DBusError(reason.code, `${p.what}: ${reason.message}`, { cause: reason, errorName: reason.errorName }));
    }
    this.#pending.clear();
    for (const listener of [...this.#closeListeners]) listener(err);
    this.#closeListeners.clear();
  }
}
