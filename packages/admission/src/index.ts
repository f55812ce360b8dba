export { createPredicateAdmitHandler } from './predicate.js';
export { createCriticalPodAdmissionHandler } from './preemption.js';
export type { CriticalPodAdmissionHandlerOptions, PreemptPodRequest } from './preemption.js';
export { createSysctlAdmitHandler, safeSysctls, sysctlToDots, validateAllowedUnsafeSysctls } from './sysctl.js';
export {
  ADMISSION_MESSAGES,
  INSUFFICIENT_RESOURCE_PREFIX,
  PREDICATE_FAILURE_REASONS,
  PREEMPTION_DISRUPTION_MESSAGE,
  PREEMPTION_MESSAGE,
  PREEMPTION_REASON,
  TERMINATION_BY_KUBELET_REASON,
  UNEXPECTED_ADMISSION_FAILURE_PREFIX,
  SAFE_SYSCTLS,
  SYSCTL_MAX_LENGTH,
  SYSCTL_PATTERN_FORMAT,
} from './constants.js';
export { AdmissionError } from './errors.js';
export type { AdmissionErrorCode } from './errors.js';
export type {
  AdmissionFailure,
  AdmissionFailureHandler,
  AdmissionFailureOutcome,
  PodAdmitAttributes,
  PodAdmitHandler,
  PodAdmitResult,
  PredicateAdmitHandlerOptions,
  SysctlAdmitHandlerOptions,
} from './types.js';
