import { defineError } from '@kubelet-ts/common';

/** Stable error codes of @kubelet-ts/node-status. */
export type NodeStatusErrorCode =
  /** An object from the API (or the node informer) that is not a valid Node or Lease. */
  | 'INVALID_OBJECT'
  /** The node is not in the node informer yet. */
  | 'NODE_NOT_FOUND'
  /** Node status could not be posted in `nodeStatusUpdateRetry` tries. */
  | 'UPDATE_FAILED'
  /** The lease could not be renewed in its retries. */
  | 'LEASE_UPDATE_FAILED';

/** The one error class of this package. */
export class NodeStatusError extends defineError<NodeStatusErrorCode>('NodeStatusError', { defaultCode: 'UPDATE_FAILED' }) {}
