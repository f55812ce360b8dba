import { defineError } from '@kubelet-ts/common';

export type ContainerLogsErrorCode =
  /** Options given to a factory are inconsistent (maxFiles <= 1, a monitor interval under 3s, a bad size). */
  | 'INVALID_CONFIG'
  /** A `/containerLogs` query whose parameters do not decode (a boolean or an integer that is none). */
  | 'INVALID_QUERY'
  /** Log options (v1.PodLogOptions) that do not validate: tailLines < 0, limitBytes < 1, sinceSeconds with sinceTime… */
  | 'INVALID_OPTIONS'
  /** The pod, the container, its previous instance or its log file does not exist. */
  | 'NOT_FOUND'
  /** Reading, renaming, compressing or removing a log file failed. */
  | 'IO'
  /** A CRI call (ContainerStatus, ListContainers, ReopenContainerLog) failed. */
  | 'RUNTIME';

/** The one error class of @kubelet-ts/container-logs. */
export class ContainerLogsError extends defineError<ContainerLogsErrorCode>('ContainerLogsError', { defaultCode: 'IO' }) {}
