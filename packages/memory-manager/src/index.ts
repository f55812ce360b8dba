export { createMemoryManager } from './memory-manager.js';
export type { MemoryManager, MemoryManagerOptions, MemoryManagerPolicy, TopologyHint } from './memory-manager.js';
export { MemoryManagerError } from './errors.js';
export type { MemoryManagerErrorCode } from './errors.js';
export { convertReservedMemory, nodeAllocatableReservation, validateReservedMemory } from './reserved-memory.js';
export type { MemoryReservation, NodeAllocatableReservationInput, SystemReservedMemory } from './reserved-memory.js';
export { hugePageResourceName, readMemoryTopology } from './topology.js';
export type { HugePagesInfo, MemoryNumaNode, MemoryTopology, ReadMemoryTopologyOptions } from './topology.js';
