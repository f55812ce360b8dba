export { createMemoryCheckpointManager } from './memory-checkpoint-manager.js';
