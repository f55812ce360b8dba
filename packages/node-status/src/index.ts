export { createNodeStatus, defaultNodeLabels, noopNodeSink } from './node-status.js';
export type { NodeSink, NodeStatusManager, NodeStatusOptions, NodeStatusSetter } from './types.js';
export {
  conditions,
  daemonEndpoints,
  images,
  machineInfo,
  nodeAddress,
  nodeFeatures,
  platformInfo,
  runtimeHandlers,
  versionInfo,
} from './setters.js';
export type { MachineInfoProviders, NodeConditionInput, NodeImage, VersionInfoProviders } from './setters.js';
export {
  aggregateMessages,
  diskPressureCondition,
  memoryPressureCondition,
  NodeConditionType,
  pidPressureCondition,
  readyCondition,
} from './condition-setters.js';
export type { ConditionSetterOptions, ReadinessErrors, ReadyConditionOptions } from './condition-setters.js';
export {
  CONTROLLER_MANAGED_ATTACH_ANNOTATION,
  initialNode,
  initialNodeLabels,
  NodeLabel,
  TAINT_NODE_UNSCHEDULABLE,
} from './initial-node.js';
export type { InitialNodeOptions } from './initial-node.js';
export { createNodeRegistration, REGISTRATION_BACKOFF } from './registration.js';
export type { NodeRegistration, NodeRegistrationOptions } from './registration.js';
export { createNodeStartupLatencyTracker } from './startup-latency.js';
export type { NodeStartupLatencyTracker, NodeStartupLatencyTrackerOptions } from './startup-latency.js';
export { createNodeStatusUpdater, NODE_STATUS_DEFAULTS } from './status-updater.js';
export type { NodeStatusUpdater, NodeStatusUpdaterOptions } from './status-updater.js';
export { createNodeLeaseController, NODE_LEASE_DEFAULTS } from './lease-controller.js';
export type { NodeLeaseController, NodeLeaseControllerOptions } from './lease-controller.js';
export type { LeaseApi, NodeApi, NodeLister } from './ports.js';
export { NodeStatusError } from './errors.js';
export type { NodeStatusErrorCode } from './errors.js';
export { osImageFrom, readHostInfo, readHugePages } from './host.js';
export type { HostInfo } from './host.js';
export { goArch } from './platform.js';
export { BASE_RUNTIME_SYNC_THRESHOLD_MS, createRuntimeState } from './runtime-state.js';
export type {
  RuntimeConditionInput,
  RuntimeFeaturesInput,
  RuntimeHandlerInput,
  RuntimeHealthCheck,
  RuntimeState,
} from './runtime-state.js';
