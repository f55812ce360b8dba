import { defineError } from '@kubelet-ts/common';

export type CpuManagerErrorCode =
  /** Not a cpuset list (`0-3,7`). */
  | 'INVALID_CPUSET'
  /** The static policy's configuration cannot work on this machine (no reserved CPUs, unknown CPUs…). */
  | 'INVALID_CONFIGURATION'
  /** The checkpoint does not fit this machine or policy: upstream refuses to start then. */
  | 'INVALID_STATE'
  /** An exclusive allocation that the free CPUs cannot satisfy. */
  | 'NOT_ENOUGH_CPUS';

/** The one error class of @kubelet-ts/cpu-manager. */
export class CpuManagerError extends defineError<CpuManagerErrorCode>('CpuManagerError', { defaultCode: 'INVALID_CONFIGURATION' }) {}
