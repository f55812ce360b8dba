import { defineError } from '@kubelet-ts/common';

export type TopologyManagerErrorCode =
  /** The machine or the configuration is one upstream refuses (more than 8 NUMA nodes, an unknown policy). */
  'INVALID_CONFIGURATION';

/** The one error class of @kubelet-ts/topology-manager. */
export class TopologyManagerError extends defineError<TopologyManagerErrorCode>('TopologyManagerError', {
  defaultCode: 'INVALID_CONFIGURATION',
}) {}
