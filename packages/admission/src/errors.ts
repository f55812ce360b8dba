import { defineError } from '@kubelet-ts/common';

export type AdmissionErrorCode =
  /** An entry of allowedUnsafeSysctls is not a sysctl pattern, or not known to be namespaced (upstream NewAllowlist). */
  'INVALID_SYSCTL_ALLOWLIST';

/**
 * The one error class of @kubelet-ts/admission. Admitting never throws (a refusal carries the
 * reason); only building a sysctl handler from a bad allowlist does, as upstream's kubelet fails to start.
 */
export class AdmissionError extends defineError<AdmissionErrorCode>('AdmissionError', { defaultCode: 'INVALID_SYSCTL_ALLOWLIST' }) {}
