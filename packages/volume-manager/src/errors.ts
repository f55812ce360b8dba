import { defineError } from '@kubelet-ts/common';

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
export class VolumeError extends defineError<VolumeErrorCode>('VolumeError', { defaultCode: 'MOUNT_FAILED' }) {}
