export {
  DEFAULT_PRIORITY,
  DISRUPTION_TARGET_CONDITION,
  GRACEFUL_NODE_SHUTDOWN_STATE_FILE,
  GRACEFUL_SHUTDOWN_END_TIME_METRIC,
  GRACEFUL_SHUTDOWN_START_TIME_METRIC,
  INHIBIT_MODE,
  INHIBIT_WHAT,
  INHIBIT_WHO,
  INHIBIT_WHY,
  KUBELET_LOGIND_CONF,
  LOGIND_CONF_DIR,
  NODE_SHUTDOWN_EVENT_REASON,
  NODE_SHUTDOWN_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_MESSAGE,
  NODE_SHUTDOWN_NOT_ADMITTED_REASON,
  NODE_SHUTDOWN_REASON,
  NODE_SHUTTING_DOWN_MESSAGE,
  SHUTDOWN_CANCELLED_MESSAGE,
  SHUTDOWN_DETECTED_MESSAGE,
  SYSTEM_CRITICAL_PRIORITY,
  TERMINATION_BY_KUBELET_REASON,
} from './constants.js';
export { NodeShutdownError } from './errors.js';
export type { NodeShutdownErrorCode } from './errors.js';
export { createNodeShutdownManager } from './manager.js';
export type {
  InhibitLock,
  NodeShutdownManager,
  NodeShutdownManagerOptions,
  ShutdownInhibitor,
  ShutdownKillRequest,
  ShutdownMonitor,
} from './manager.js';
export { groupByPriority, migrateConfig, periodRequestedMs, podPriority, shutdownGroups } from './priority.js';
export type { ShutdownGracePeriodByPodPriority } from './priority.js';
export { formatGoTime, loadShutdownState, storeShutdownState } from './state.js';
export type { GracefulShutdownState } from './state.js';
export { LOGIND_INTERFACE, LOGIND_OBJECT, LOGIND_SERVICE, connectSystemdInhibitor } from './systemd-inhibitor.js';
export type { SpawnFn, SystemdInhibitorOptions } from './systemd-inhibitor.js';
