import { defineError } from '@kubelet-ts/common';

export type EvictionErrorCode =
  /** An eviction threshold, grace period or minimum reclaim in the options is not valid. */
  | 'INVALID_CONFIG'
  /** The summary (stats) could not be read; no decision was taken this cycle. */
  | 'STATS_UNAVAILABLE'
  /** Killing a pod for eviction failed. */
  | 'KILL_FAILED';

/** The one error class of @kubelet-ts/eviction-manager. */
export class EvictionError extends defineError<EvictionErrorCode>('EvictionError', { defaultCode: 'KILL_FAILED' }) {}
