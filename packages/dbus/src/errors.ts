import { defineError } from '@kubelet-ts/common';

export type DBusErrorCode =
  /** A bus address that names no unix socket (`unix:path=…` or `unix:abstract=…`). */
  | 'INVALID_ADDRESS'
  /** The socket could not be reached, or it closed. */
  | 'CONNECTION'
  /** The bus refused SASL EXTERNAL (or answered it with something else). */
  | 'AUTH_FAILED'
  /** Bytes that are not a D-Bus message (bad header, length, alignment, boolean, UTF-8…): the connection is closed. */
  | 'PROTOCOL'
  /** A signature that is not valid, or a value that does not fit its signature. */
  | 'INVALID_SIGNATURE'
  | 'INVALID_VALUE'
  /** The peer answered with an error message (`errorName` says which). */
  | 'REMOTE_ERROR'
  /** A reply whose body is not what the caller expected (another signature, another type in the variant). */
  | 'UNEXPECTED_REPLY'
  /** A message that carries unix file descriptors: this client cannot receive them (see the README). */
  | 'FD_PASSING_UNSUPPORTED'
  /** No reply before the call's deadline. */
  | 'TIMEOUT'
  /** The connection was closed (by `close()` or by the bus) before the reply came. */
  | 'CLOSED';

export interface DBusErrorOptions {
  cause?: unknown;
  /** The D-Bus error name of a REMOTE_ERROR (`org.freedesktop.DBus.Error.ServiceUnknown`). */
  errorName?: string;
}

/** The one error class of @kubelet-ts/dbus. */
export class DBusError extends defineError<DBusErrorCode>('DBusError', { defaultCode: 'CONNECTION' }) {
  /** The D-Bus error name of a REMOTE_ERROR; '' otherwise. */
  readonly errorName: string;

  constructor(code: DBusErrorCode, message: string, options: DBusErrorOptions = {}) {
    super(code, message, options);
    this.errorName = options.errorName ?? '';
  }
}

/** The bus refused the call because no one owns the name (`org.freedesktop.DBus.Error.ServiceUnknown`, `NameHasNoOwner`). */
export function isServiceUnknown(err: unknown): boolean {
  return (
    DBusError.is(err, 'REMOTE_ERROR') &&
    (err.errorName === 'org.freedesktop.DBus.Error.ServiceUnknown' || err.errorName === 'org.freedesktop.DBus.Error.NameHasNoOwner')
  );
}
