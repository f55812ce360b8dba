import { defineError } from '@kubelet-ts/common';

export type CheckpointErrorCode =
  /** No checkpoint of that name (upstream ErrCheckpointNotFound: "checkpoint is not found"). */
  | 'NOT_FOUND'
  /** The checksum does not match the content (upstream CorruptCheckpointError: "checkpoint is corrupted"). */
  | 'CORRUPT'
  /** Not a checkpoint of the expected kind: bad JSON, wrong shapes, or a name the store refuses. */
  | 'INVALID'
  /** Reading, writing or removing the file failed. */
  | 'IO';

/** The one error class of @kubelet-ts/checkpoint-manager. */
export class CheckpointError extends defineError<CheckpointErrorCode>('CheckpointError', { defaultCode: 'INVALID' }) {}

/**
 * Upstream's refusal when a resource manager cannot take its checkpoint (NewCheckpointState of the
 * CPU and memory managers): the kubelet does not start until the node is drained and the file removed.
 */
export function restoreStateError(manager: string, path: string, problem: string): CheckpointError {
  return new CheckpointError(
    'INVALID',
    `could not restore state from checkpoint: ${problem}, please drain this node and delete the ${manager} checkpoint file ${JSON.stringify(path)} before restarting Kubelet`,
  );
}
