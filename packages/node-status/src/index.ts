export { createNodeStatus, defaultNodeLabels, noopNodeSink } from './node-status.js';
export type { NodeSink, NodeStatusManager, NodeStatusOptions, NodeStatusSetter } from './types.js';
export { conditions, daemonEndpoints, images, machineInfo, nodeAddress, platformInfo, versionInfo } from './setters.js';
export type { MachineInfoProviders, NodeConditionInput, NodeImage, VersionInfoProviders } from './setters.js';
export { osImageFrom, readHostInfo } from './host.js';
export type { HostInfo } from './host.js';
export { goArch } from './platform.js';
