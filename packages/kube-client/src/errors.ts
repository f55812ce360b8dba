import { defineError } from '@kubelet-ts/common';
import type { Status } from '@kubelet-ts/api';

export type KubeClientErrorCode =
  /** The API server answered with a non-2xx status (or a watch with an ERROR event): see `statusCode`, `reason`, `status`. */
  | 'API_STATUS'
  /** No answer: connection refused or reset, TLS failure, a stream cut short. */
  | 'TRANSPORT'
  /** The request's deadline (`timeoutMs`) passed before the answer was read. */
  | 'TIMEOUT'
  /** A kubeconfig that cannot be read, parsed or used (the message names the file and field). */
  | 'KUBECONFIG_INVALID'
  /** A response body that is not JSON or does not match the caller's schema. */
  | 'DECODE'
  /** A watch line that is not a JSON watch event. */
  | 'WATCH_DECODE'
  /** A client option out of range (e.g. an unsupported content type). */
  | 'INVALID_OPTIONS';

export interface KubeClientErrorOptions {
  cause?: unknown;
  /** The HTTP status (or the ERROR event's `code`); 0 when no response was received. */
  statusCode?: number;
  /** The metav1.Status `reason` (NotFound, AlreadyExists, Conflict, Expired…); '' when none. */
  reason?: string;
  /** The whole metav1.Status the server returned, when it returned one. */
  status?: Status;
  /** Seconds of a `Retry-After` header, when the server sent one. */
  retryAfterSeconds?: number;
}

/**
 * The one error class of @kubelet-ts/kube-client. Every failure carries `statusCode` and `reason`, so
 * @kubelet-ts/api's `isNotFound`, `isAlreadyExists`, `isConflict`, `isResourceExpired` classify it
 * (AlreadyExists and Conflict are both 409: only `reason` tells them apart).
 */
export class KubeClientError extends defineError<KubeClientErrorCode>('KubeClientError', { defaultCode: 'TRANSPORT' }) {
  readonly statusCode: number;
  readonly reason: string;
  readonly status: Status | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: KubeClientErrorCode, message: string, options: KubeClientErrorOptions = {}) {
    super(code, message, options);
    this.statusCode = options.statusCode ?? 0;
    this.reason = options.reason ?? '';
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
