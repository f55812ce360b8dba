import { defineError } from '@kubelet-ts/common';

export type ObjectManagerErrorCode =
  /** `get` of an object no registered pod names (upstream: `object "ns"/"name" not registered`). */
  | 'NOT_REGISTERED'
  /** The object's watch did not list within the poll bound (upstream: `failed to sync configmap cache: …`). */
  | 'SYNC_TIMEOUT'
  /** The API served an object that does not validate; the message names namespace/name, field and reason. */
  | 'INVALID_OBJECT'
  /** A TokenRequest failed and there is no cached token that is still valid (upstream's messages). */
  | 'TOKEN_REQUEST';

/** The one error class of @kubelet-ts/object-manager. */
export class ObjectManagerError extends defineError<ObjectManagerErrorCode>('ObjectManagerError', {
  defaultCode: 'INVALID_OBJECT',
}) {}
