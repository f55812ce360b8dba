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
  code: CriErrorCode;
  /** The RPC, e.g. "RuntimeService/StopContainer". */
  method: string;
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
export class CriError extends Error {
  readonly code: CriErrorCode;
  readonly grpcCode: number;
  readonly method: string;
  readonly details: string;

  constructor(message: string, options: CriErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CriError';
    this.code = options.code;
    this.method = options.method;
    this.details = options.details ?? '';
    this.grpcCode =
      options.grpcCode ?? (options.code === 'VERSION_MISMATCH' ? GrpcStatus.FAILED_PRECONDITION : GrpcStatus[options.code]);
  }

  /**
   * Builds a CriError from anything a gRPC call may reject with (a ServiceError, an abort reason, …).
   * `endpoint`, when given, is named in the message so that an operator sees which runtime failed.
   */
  static from(err: unknown, method: string, endpoint?: string): CriError {
    if (err instanceof CriError) return err;
    const where = endpoint === undefined ? '' : ` (${endpoint})`;
    if (isServiceErrorLike(err)) {
      const code = GRPC_CODE_NAMES[err.code] ?? 'UNKNOWN';
      const details = typeof err.details === 'string' && err.details !== '' ? err.details : err.message;
      const text =
        code === 'UNAVAILABLE' && endpoint !== undefined
          ? `container runtime at ${endpoint} is not reachable: ${details}`
          : details;
      const message = code === 'UNAVAILABLE' && endpoint !== undefined ? `${method}: ${code}: ${text}` : `${method}${where}: ${code}: ${text}`;
      return new CriError(message, { code, grpcCode: err.code, method, details, cause: err });
    }
    if (err instanceof Error && err.name === 'AbortError') {
      return new CriError(`${method}${where}: CANCELLED: ${err.message}`, { code: 'CANCELLED', method, cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new CriError(`${method}${where}: UNKNOWN: ${message}`, { code: 'UNKNOWN', method, cause: err });
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

/**
 * A CriError, also one from another copy of this module: the `.` and `./testing` bundles (and ESM next to
 * CJS) each carry their own class, so `instanceof` alone would miss errors thrown by the fakes.
 */
function isCriErrorLike(err: unknown): err is { code: string } {
  return err instanceof CriError || (err instanceof Error && err.name === 'CriError' && typeof (err as { code?: unknown }).code === 'string');
}

function hasCode(err: unknown, code: CriErrorCode): boolean {
  if (isCriErrorLike(err)) return err.code === code;
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
