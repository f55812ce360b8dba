export { EvictionError } from './errors.js';
export type { EvictionErrorCode } from './errors.js';
export {
  Signal,
  EVICTION_SIGNALS,
  NodeConditionType,
  SIGNAL_TO_NODE_CONDITION,
  SIGNAL_TO_RESOURCE,
  DEFAULT_EVICTION_HARD,
  DEFAULT_MONITORING_INTERVAL_MS,
  DEFAULT_PRESSURE_TRANSITION_PERIOD_MS,
  DEFAULT_POD_CLEANUP_TIMEOUT_MS,
  IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS,
  EVICTED_REASON,
  TERMINATION_BY_KUBELET_REASON,
  SYSTEM_CRITICAL_PRIORITY,
  SYSTEM_PRIORITY_CLASSES,
  TAINT_NODE_MEMORY_PRESSURE,
} from './constants.js';
export type { EvictionSignal, PressureConditionType, StarvedResource } from './constants.js';
export { parseThresholdConfig, parseThresholdValue, thresholdQuantity, isHardThreshold, EvictionConfigSchema } from './thresholds.js';
export type { EvictionConfig, EvictionThreshold, ThresholdValue } from './thresholds.js';
export { makeSignalObservations, thresholdsMet } from './signals.js';
export type { SignalObservation, SignalObservations } from './signals.js';
export { isCriticalPod, isCriticalPodBasedOnPriority, podPriority } from './critical.js';
export type { CriticalPodOptions } from './critical.js';
export { rankMemoryPressure, rankPIDPressure, rankDiskPressure, rankFuncFor } from './ranking.js';
export type { PodStatsFn } from './ranking.js';
export { evictionMessage, MessageFormat } from './messages.js';
export { localStorageViolation } from './local-storage.js';
export { admitUnderPressure } from './admission.js';
export type { PodAdmitResult } from './admission.js';
export { NODE_CONDITION_TEXT } from './node-conditions.js';
export type { NodeCondition } from './node-conditions.js';
export { createEvictionManager } from './manager.js';
export type {
  ConditionChangeListener,
  EvictionManager,
  EvictionManagerOptions,
  EvictionPodCondition,
  KillPodFn,
  KillPodRequest,
  NodeReclaimFn,
} from './manager.js';
