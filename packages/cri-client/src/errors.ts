import { defineError } from '@kubelet-ts/common';

/** gRPC status code names, indexed by their number. */
const GRPC_CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

/** A gRPC status name, plus VERSION_MISMATCH for a runtime that does not speak CRI v1. */
export type CriErrorCode = (typeof GRPC_CODE_NAMES)[number] | 'VERSION_MISMATCH';

/** gRPC status numbers by name. */
export const GrpcStatus: Readonly<Record<(typeof GRPC_CODE_NAMES)[number], number>> = Object.freeze(
  Object.fromEntries(GRPC_CODE_NAMES.map((name, index) => [name, index])) as Record<(typeof GRPC_CODE_NAMES)[number], number>,
);

export interface CriErrorOptions {
  /** The RPC, e.g. "RuntimeService/StopContainer"; empty for an error not raised by a call. */
  method?: string;
  /** The gRPC status number; derived from `code` when omitted (VERSION_MISMATCH has 9, FAILED_PRECONDITION). */
  grpcCode?: number;
  cause?: unknown;
  /** The runtime's own message (gRPC `details`), when there is one. */
  details?: string;
}

/**
 * The single error class of @kubelet-ts/cri-client: every rejection of a client or fake call is one.
 * `code` is the gRPC status name (stable, switch on it), `grpcCode` its number.
 */
export class CriError extends defineError<CriErrorCode>('CriError', { defaultCode: 'UNKNOWN' }) {
  readonly grpcCode: number;
  readonly method: string;
  readonly details: string;

  constructor(code: CriErrorCode, message: string, options: CriErrorOptions = {}) {
    super(code, message, options);
    this.method = options.method ?? '';
    this.details = options.details ?? '';
    this.grpcCode = options.grpcCode ?? (code === 'VERSION_MISMATCH' ? GrpcStatus.FAILED_PRECONDITION : GrpcStatus[code]);
  }

  /**
   * Builds a CriError from anything a gRPC call of `method` may reject with (a ServiceError, an
   * abort reason, …), keeping a CriError as it is. `endpoint`, when given, is named in the message
   * so that an operator sees which runtime failed.
   */
  static fromRpc(err: unknown, method: string, endpoint?: string): CriError {
    if (CriError.is(err)) return err;
    const where = endpoint === undefined ? '' : ` (${endpoint})`;
    if (isServiceErrorLike(err)) {
      const code = GRPC_CODE_NAMES[err.code] ?? 'UNKNOWN';
      const details = typeof err.details === 'string' && err.details !== '' ? err.details : err.message;
      const text =
        code === 'UNAVAILABLE' && endpoint !== undefined ? `container runtime at ${endpoint} is not reachable: ${details}` : details;
      const message =
        code === 'UNAVAILABLE' && endpoint !== undefined ? `${method}: ${code}: ${text}` : `${method}${where}: ${code}: ${text}`;
      return new CriError(code, message, { grpcCode: err.code, method, details, cause: err });
    }
    if (err instanceof Error && err.name === 'AbortError') {
      return new CriError('CANCELLED', `${method}${where}: CANCELLED: ${err.message}`, { method, cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new CriError('UNKNOWN', `${method}${where}: UNKNOWN: ${message}`, { method, cause: err });
  }
}

interface ServiceErrorLike {
  code: number;
  details?: unknown;
  message: string;
}

function isServiceErrorLike(err: unknown): err is ServiceErrorLike {
  return (
    err instanceof Error &&
    typeof (err as { code?: unknown }).code === 'number' &&
    Number.isInteger((err as unknown as { code: number }).code)
  );
}

function hasCode(err: unknown, code: CriErrorCode): boolean {
  if (CriError.is(err)) return err.code === code;
  return isServiceErrorLike(err) && GRPC_CODE_NAMES[err.code] === code;
}

/** NOT_FOUND: the sandbox, container or image does not exist (upstream crierrors.IsNotFound). */
export function isNotFound(err: unknown): boolean {
  return hasCode(err, 'NOT_FOUND');
}

/** UNIMPLEMENTED: the runtime does not offer this RPC (containerd 1.6 for GetContainerEvents, RuntimeConfig, …). */
export function isUnimplemented(err: unknown): boolean {
  return hasCode(err, 'UNIMPLEMENTED');
}

/** UNAVAILABLE: the runtime socket is missing or the runtime is restarting; retrying later may succeed. */
export function isUnavailable(err: unknown): boolean {
  return hasCode(err, 'UNAVAILABLE');
}

/** DEADLINE_EXCEEDED: the call ran past its deadline. */
export function isDeadlineExceeded(err: unknown): boolean {
  return hasCode(err, 'DEADLINE_EXCEEDED');
}

/**
 * Resolves to undefined when the promise rejects with NOT_FOUND; any other rejection passes through.
 * Matches the kubelet's teardown paths, where "already gone" counts as success.
 */
export async function ignoreNotFound<T>(promise: Promise<T>): Promise<T | undefined> {
  try {
    return await promise;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
