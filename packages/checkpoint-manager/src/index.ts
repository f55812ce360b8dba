export { createCheckpointManager } from './checkpoint-manager.js';
export type { CheckpointManager, CheckpointManagerOptions } from './checkpoint-manager.js';
export { goChecksum } from './checksum.js';
export { CheckpointError, restoreStateError } from './errors.js';
export type { CheckpointErrorCode } from './errors.js';
export { CPU_MANAGER_STATE_FILE, decodeCpuManagerState, encodeCpuManagerState } from './cpu-manager-state.js';
export type { CpuManagerState, CpuManagerStateV1 } from './cpu-manager-state.js';
export { MEMORY_MANAGER_STATE_FILE, decodeMemoryManagerState, encodeMemoryManagerState } from './memory-manager-state.js';
export type { MemoryBlock, MemoryManagerState, MemoryTable, NumaNodeState } from './memory-manager-state.js';
