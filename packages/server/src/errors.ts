export type ServerErrorCode =
  /** The socket could not be bound (port in use, permission, bad address). */
  | 'LISTEN_FAILED'
  /** listen() was called on a server that is already listening. */
  | 'ALREADY_LISTENING'
  /** A route was registered twice or with a malformed path. */
  | 'INVALID_ROUTE';

/** The one error class of @kubelet-ts/server. */
export class ServerError extends Error {
  override readonly name = 'ServerError';
  readonly code: ServerErrorCode;

  constructor(code: ServerErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export function isServerError(err: unknown): err is ServerError {
  return err instanceof ServerError || (err instanceof Error && err.name === 'ServerError' && typeof (err as { code?: unknown }).code === 'string');
}
