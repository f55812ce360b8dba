export type VolumeErrorCode =
  /** The volume spec is invalid or names a type the manager does not support. */
  | 'INVALID_VOLUME'
  /** A hostPath did not pass its `type` check. */
  | 'HOSTPATH_TYPE_CHECK'
  /** A path (item path, subPath) would leave its volume. */
  | 'PATH_ESCAPE'
  /** A referenced ConfigMap, Secret, key or token is missing (and not optional). */
  | 'SOURCE_NOT_FOUND'
  /** A ConfigMap/Secret manifest or a CSI response did not validate. */
  | 'INVALID_OBJECT'
  /** A mount or unmount failed. */
  | 'MOUNT_FAILED'
  /** A CSI driver is unknown or one of its RPCs failed. */
  | 'CSI_FAILED'
  /** A plugin on the registration socket could not be registered (GetInfo failed, refused by its handler…). */
  | 'PLUGIN_REGISTRATION_FAILED'
  /** SetUp failed (the message is the one upstream puts in FailedMount events). */
  | 'SETUP_FAILED'
  /** The caller gave up waiting (aborted signal). */
  | 'ABORTED';

/** The one error class of @kubelet-ts/volume-manager. */
export class VolumeError extends Error {
  override readonly name = 'VolumeError';
  readonly code: VolumeErrorCode;

  constructor(code: VolumeErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** Wraps anything thrown into a VolumeError, keeping an existing one as is. */
  static from(err: unknown, code: VolumeErrorCode = 'MOUNT_FAILED'): VolumeError {
    if (isVolumeError(err)) return err;
    return new VolumeError(code, err instanceof Error ? err.message : String(err), { cause: err });
  }
}

export function isVolumeError(err: unknown): err is VolumeError {
  return err instanceof VolumeError || (err instanceof Error && err.name === 'VolumeError' && typeof (err as { code?: unknown }).code === 'string');
}

export function isPathEscape(err: unknown): boolean {
  return isVolumeError(err) && err.code === 'PATH_ESCAPE';
}
