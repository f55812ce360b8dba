export { createPredicateAdmitHandler } from './predicate.js';
export { createSysctlAdmitHandler, safeSysctls, sysctlToDots, validateAllowedUnsafeSysctls } from './sysctl.js';
export {
  ADMISSION_MESSAGES,
  INSUFFICIENT_RESOURCE_PREFIX,
  PREDICATE_FAILURE_REASONS,
  SAFE_SYSCTLS,
  SYSCTL_MAX_LENGTH,
  SYSCTL_PATTERN_FORMAT,
} from './constants.js';
export { AdmissionError } from './errors.js';
export type { AdmissionErrorCode } from './errors.js';
export type {
  PodAdmitAttributes,
  PodAdmitHandler,
  PodAdmitResult,
  PredicateAdmitHandlerOptions,
  SysctlAdmitHandlerOptions,
} from './types.js';
