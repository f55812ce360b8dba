export type ContainerLogsErrorCode =
  /** Options given to a factory are inconsistent (maxFiles <= 1, a monitor interval under 3s, a bad size). */
  | 'INVALID_CONFIG'
  /** Log options (v1.PodLogOptions) that do not validate: tailLines < 0, limitBytes < 1, sinceSeconds with sinceTime… */
  | 'INVALID_OPTIONS'
  /** The pod, the container, its previous instance or its log file does not exist. */
  | 'NOT_FOUND'
  /** A line is not in the CRI log format. */
  | 'PARSE'
  /** Reading, renaming, compressing or removing a log file failed. */
  | 'IO'
  /** A CRI call (ContainerStatus, ListContainers, ReopenContainerLog) failed. */
  | 'RUNTIME';

/** The one error class of @kubelet-ts/container-logs. */
export class ContainerLogsError extends Error {
  override readonly name = 'ContainerLogsError';
  readonly code: ContainerLogsErrorCode;

  constructor(code: ContainerLogsErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps anything thrown, keeping ContainerLogsErrors as they are. */
  static from(err: unknown, code: ContainerLogsErrorCode, message: string): ContainerLogsError {
    if (isContainerLogsError(err)) return err;
    return new ContainerLogsError(code, message, { cause: err });
  }
}

export function isContainerLogsError(err: unknown): err is ContainerLogsError {
  return err instanceof ContainerLogsError || (err instanceof Error && err.name === 'ContainerLogsError' && typeof (err as { code?: unknown }).code === 'string');
}

/** True for a ContainerLogsError of code NOT_FOUND (an HTTP server answers 404). */
export function isLogsNotFound(err: unknown): boolean {
  return isContainerLogsError(err) && err.code === 'NOT_FOUND';
}

/**
 * NOT_FOUND from CRI. Checks the `code` field too: cri-client's `isNotFound` relies on `instanceof CriError`,
 * and its `.` and `./testing` bundles each carry their own CriError class, so fakes' errors fail that test.
 */
export function isCriNotFound(err: unknown): boolean {
  return err instanceof Error && (err as { code?: unknown }).code === 'NOT_FOUND';
}
