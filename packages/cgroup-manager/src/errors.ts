import { defineError } from '@kubelet-ts/common';

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

/**
 * The one error class of @kubelet-ts/cgroup-manager. `CgroupError.from(err, code, message)`: the
 * message says what failed; the reason is the cause (common's `errorMessage` prints the chain).
 */
export class CgroupError extends defineError<CgroupErrorCode>('CgroupError', { defaultCode: 'IO' }) {}
