import { defineError } from '@kubelet-ts/common';

export type ServerErrorCode =
  /** The socket could not be bound (port in use, permission, bad address). */
  | 'LISTEN_FAILED'
  /** listen() was called on a server that is already listening. */
  | 'ALREADY_LISTENING'
  /** A route was registered twice or with a malformed path. */
  | 'INVALID_ROUTE'
  /** The TLS options cannot be used: an unknown tlsMinVersion or cipher suite name, a CA bundle without certificates. */
  | 'INVALID_TLS_CONFIG'
  /** A TokenReview or SubjectAccessReview webhook failed or answered something that is not a review. */
  | 'WEBHOOK_FAILED';

/** The one error class of @kubelet-ts/server. */
export class ServerError extends defineError<ServerErrorCode>('ServerError', { defaultCode: 'LISTEN_FAILED' }) {}
