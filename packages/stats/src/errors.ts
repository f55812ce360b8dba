import { defineError } from '@kubelet-ts/common';

export type StatsErrorCode =
  /** A node figure (root cgroup, /proc, statfs of the root dir) could not be read or parsed. */
  | 'NODE_STATS'
  /** A CRI call the summary needs (ImageFsInfo, ListContainerStats, ListContainers, ListPodSandbox) failed. */
  | 'RUNTIME'
  /** The options given to a factory are inconsistent. */
  | 'INVALID_CONFIG';

/** The one error class of @kubelet-ts/stats. */
export class StatsError extends defineError<StatsErrorCode>('StatsError', { defaultCode: 'NODE_STATS' }) {}
