export { TOPOLOGY_AFFINITY_ERROR, TOPOLOGY_AFFINITY_MESSAGE, createTopologyManager } from './topology-manager.js';
export type { TopologyManager, TopologyManagerOptions } from './topology-manager.js';
export { mergeHints } from './merge.js';
export { everyMask, maskOf, nodesOf } from './bitmask.js';
export type { NumaMask } from './bitmask.js';
export { TopologyManagerError } from './errors.js';
export type { TopologyManagerErrorCode } from './errors.js';
export type { HintProvider, ResourceHints, TopologyHint, TopologyManagerPolicy, TopologyManagerScope } from './types.js';
