import { defineError } from '@kubelet-ts/common';

export type MemoryManagerErrorCode =
  /** The policy cannot start with this configuration (reservedMemory not matching node allocatable, no reserved memory…). */
  | 'INVALID_CONFIGURATION'
  /** The checkpoint does not fit this machine or policy: upstream refuses to start then. */
  | 'INVALID_STATE'
  /** A Guaranteed container's memory cannot be placed (upstream's Allocate errors). */
  | 'ALLOCATION_FAILED';

/** The one error class of @kubelet-ts/memory-manager. */
export class MemoryManagerError extends defineError<MemoryManagerErrorCode>('MemoryManagerError', {
  defaultCode: 'INVALID_CONFIGURATION',
}) {}
