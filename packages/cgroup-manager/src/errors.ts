export type CgroupErrorCode =
  /** A pod's resources cannot be turned into cgroup settings (a quantity that does not parse, a limit below its request). */
  | 'INVALID_RESOURCES'
  /** The configured cgroupRoot (or the QoS hierarchy under it) could not be created. */
  | 'CGROUP_ROOT'
  /** No usable cgroup mount was found in mountinfo, or a required controller is missing. */
  | 'NOT_MOUNTED'
  /** Reading or writing a cgroup file or directory failed. */
  | 'IO'
  /** A cgroup could not be removed because processes or child cgroups are still in it. */
  | 'BUSY'
  /** The systemd driver needs systemd over D-Bus, which is not reachable. */
  | 'SYSTEMD_UNAVAILABLE'
  /** The options given to a factory are inconsistent. */
  | 'INVALID_CONFIG';

/** The one error class of @kubelet-ts/cgroup-manager. */
export class CgroupError extends Error {
  override readonly name = 'CgroupError';
  readonly code: CgroupErrorCode;

  constructor(code: CgroupErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /**
   * Wraps anything thrown into a CgroupError with `code`, keeping CgroupErrors as they are. The
   * message says what failed; the reason is the cause (common's `errorMessage` prints the chain).
   */
  static from(err: unknown, code: CgroupErrorCode, message: string): CgroupError {
    if (isCgroupError(err)) return err;
    return new CgroupError(code, message, { cause: err });
  }
}

export function isCgroupError(err: unknown): err is CgroupError {
  return err instanceof CgroupError || (err instanceof Error && err.name === 'CgroupError' && typeof (err as { code?: unknown }).code === 'string');
}
