export type StatsErrorCode =
  /** A node figure (root cgroup, /proc, statfs of the root dir) could not be read or parsed. */
  | 'NODE_STATS'
  /** A CRI call the summary needs (ImageFsInfo, ListContainerStats, ListContainers, ListPodSandbox) failed. */
  | 'RUNTIME'
  /** The options given to a factory are inconsistent. */
  | 'INVALID_CONFIG';

/** The one error class of @kubelet-ts/stats. */
export class StatsError extends Error {
  override readonly name = 'StatsError';
  readonly code: StatsErrorCode;

  constructor(code: StatsErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps anything thrown into a StatsError with `code`, keeping StatsErrors as they are. */
  static from(err: unknown, code: StatsErrorCode, message: string): StatsError {
    if (isStatsError(err)) return err;
    return new StatsError(code, message, { cause: err });
  }
}

export function isStatsError(err: unknown): err is StatsError {
  return err instanceof StatsError || (err instanceof Error && err.name === 'StatsError' && typeof (err as { code?: unknown }).code === 'string');
}
