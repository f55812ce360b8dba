import type { CheckpointManager } from '../checkpoint-manager.js';
import { CheckpointError } from '../errors.js';

/** A CheckpointManager in memory, for unit tests: `files` holds what was written. */
export function createMemoryCheckpointManager(
  initial: Record<string, string | Uint8Array> = {},
): CheckpointManager & { files: Map<string, Buffer> } {
  const files = new Map(Object.entries(initial).map(([k, v]) => [k, Buffer.from(v)]));
  return {
    files,
    async read(name) {
      const data = files.get(name);
      if (data === undefined) throw new CheckpointError('NOT_FOUND', 'checkpoint is not found');
      return Buffer.from(data);
    },
    async write(name, data) {
      files.set(name, Buffer.from(data));
    },
    async remove(name) {
      files.delete(name);
    },
    async list() {
      return [...files.keys()];
    },
  };
}
