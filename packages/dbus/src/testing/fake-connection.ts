import type { DBusConnection, MethodCall, MethodCallHandler, SignalFilter, SignalMessage } from '../connection.js';
import { DBusError } from '../errors.js';
import type { DBusMessage } from '../message.js';
import type { DBusValue, DBusVariant } from '../marshal.js';

export interface RecordedCall extends MethodCall {
  /** `interface.member`, for matching. */
  method: string;
}

type Answer = (call: MethodCall) => DBusMessage | Promise<DBusMessage>;

/**
 * A DBusConnection without a bus: records every call, answers with what the test registered per
 * `interface.member` (UnknownMethod otherwise), and delivers the signals the test emits.
 */
export class FakeDBusConnection implements DBusConnection {
  uniqueName = ':1.1';
  readonly calls: RecordedCall[] = [];
  readonly matches: string[] = [];
  /** Signals this connection sent with emitSignal. */
  readonly emitted: Array<{ path: string; interface: string; member: string; signature?: string; body?: DBusValue[] }> = [];
  #answers = new Map<string, Answer>();
  #properties = new Map<string, DBusVariant>();
  #signals = new Set<{ filter: SignalFilter; listener: (s: SignalMessage) => void }>();
  #closeListeners = new Set<(err: DBusError | undefined) => void>();
  #closed = false;
  /** The next calls fail with this error (then calls work again). */
  failNext: DBusError[] = [];

  get closed(): boolean {
    return this.#closed;
  }

  /** Answers `interface.member` calls. */
  answer(method: string, answer: Answer | { signature?: string; body?: DBusValue[] }): void {
    this.#answers.set(
      method,
      typeof answer === 'function'
        ? answer
        : () => ({ type: 'method_return', serial: 1, replySerial: 1, signature: answer.signature ?? '', body: answer.body ?? [] }),
    );
  }

  /** The value org.freedesktop.DBus.Properties.Get returns for `interface.property`. */
  setProperty(iface: string, property: string, value: DBusVariant): void {
    this.#properties.set(`${iface}.${property}`, value);
  }

  async call(call: MethodCall): Promise<DBusMessage> {
    const method = `${call.interface ?? ''}.${call.member}`;
    this.calls.push({ ...call, method });
    if (this.#closed) throw new DBusError('CLOSED', 'fake D-Bus connection closed');
    const failure = this.failNext.shift();
    if (failure !== undefined) throw failure;
    const answer = this.#answers.get(method);
    if (answer === undefined)
      throw new DBusError('REMOTE_ERROR', `${method}: org.freedesktop.DBus.Error.UnknownMethod`, {
        errorName: 'org.freedesktop.DBus.Error.UnknownMethod',
      });
    return answer(call);
  }

  async getProperty(destination: string, path: string, iface: string, property: string): Promise<DBusVariant> {
    this.calls.push({
      destination,
      path,
      interface: 'org.freedesktop.DBus.Properties',
      member: 'Get',
      signature: 'ss',
      body: [iface, property],
      method: 'org.freedesktop.DBus.Properties.Get',
    });
    if (this.#closed) throw new DBusError('CLOSED', 'fake D-Bus connection closed');
    const failure = this.failNext.shift();
    if (failure !== undefined) throw failure;
    const value = this.#properties.get(`${iface}.${property}`);
    if (value === undefined)
      throw new DBusError('REMOTE_ERROR', `Get ${iface}.${property}: org.freedesktop.DBus.Error.UnknownProperty`, {
        errorName: 'org.freedesktop.DBus.Error.UnknownProperty',
      });
    return value;
  }

  async addMatch(rule: string): Promise<void> {
    if (this.#closed) throw new DBusError('CLOSED', 'fake D-Bus connection closed');
    this.matches.push(rule);
  }

  async removeMatch(rule: string): Promise<void> {
    const i = this.matches.indexOf(rule);
    if (i >= 0) this.matches.splice(i, 1);
  }

  onSignal(filter: SignalFilter, listener: (signal: SignalMessage) => void): () => void {
    const entry = { filter, listener };
    this.#signals.add(entry);
    return () => this.#signals.delete(entry);
  }

  /** Delivers a signal to the listeners whose filter it passes. */
  deliverSignal(signal: {
    path: string;
    interface: string;
    member: string;
    sender?: string;
    signature?: string;
    body?: DBusValue[];
  }): void {
    const message: SignalMessage = { type: 'signal', serial: 1, sender: ':1.0', signature: '', body: [], ...signal };
    for (const { filter, listener } of [...this.#signals]) {
      if (filter.path !== undefined && filter.path !== message.path) continue;
      if (filter.interface !== undefined && filter.interface !== message.interface) continue;
      if (filter.member !== undefined && filter.member !== message.member) continue;
      listener(message);
    }
  }

  handleMethodCalls(_handler: MethodCallHandler): void {}

  emitSignal(signal: { path: string; interface: string; member: string; signature?: string; body?: DBusValue[] }): void {
    this.emitted.push(signal);
  }

  async requestName(): Promise<number> {
    return 1;
  }

  onClose(listener: (err: DBusError | undefined) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  /** The bus went away (or `close()`): close listeners are told. */
  close(err?: DBusError): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const l of [...this.#closeListeners]) l(err);
  }
}
