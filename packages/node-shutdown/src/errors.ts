import { defineError } from '@kubelet-ts/common';

export type NodeShutdownErrorCode =
  /** The first watch could not be set up (no logind, the inhibit delay cannot be raised…): upstream gives up then. */
  | 'START_FAILED'
  /** logind's InhibitDelayMaxUSec stays below the grace period asked for even after the drop-in and a reload. */
  | 'INHIBIT_DELAY_TOO_SHORT'
  /** The inhibitor could not be taken (the helper exited, logind refused). */
  | 'INHIBIT_FAILED'
  /** The state file could not be read or written, or is not JSON of the expected shape. */
  | 'STATE';

/** The one error class of @kubelet-ts/node-shutdown. */
export class NodeShutdownError extends defineError<NodeShutdownErrorCode>('NodeShutdownError', { defaultCode: 'START_FAILED' }) {}
