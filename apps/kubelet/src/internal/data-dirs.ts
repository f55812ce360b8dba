import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import {
  CheckpointError,
  MEMORY_MANAGER_STATE_FILE,
  createCheckpointManager,
  decodeMemoryManagerState,
  encodeMemoryManagerState,
  restoreStateError,
} from '@kubelet-ts/checkpoint-manager';
import type { CheckpointManager } from '@kubelet-ts/checkpoint-manager';

/**
 * Upstream setupDataDirs: the root dir's layout, with upstream's modes, so that either kubelet
 * finds what it expects on a node the other one ran (`checkpoints` only as upstream makes it
 * with the container checkpoint feature, which kubelet-ts does not have).
 */
export async function setupDataDirs(rootDir: string, podLogsDir: string): Promise<void> {
  await mkdir(rootDir, { recursive: true, mode: 0o750 });
  await mkdir(podLogsDir, { recursive: true, mode: 0o750 });
  for (const dir of ['pods', 'plugins', 'plugins_registry', 'pod-resources'])
    await mkdir(join(rootDir, dir), { recursive: true, mode: 0o750 });
}

export interface ResourceManagerStateOptions {
  rootDir: string;
  /** `memoryManagerPolicy` (kubelet-ts runs `None`). */
  memoryManagerPolicy: string;
  logger: Logger;
  store?: CheckpointManager;
}

/**
 * The memory manager's checkpoint, as the upstream manager restores it at start (the CPU manager,
 * @kubelet-ts/cpu-manager, keeps its own): a missing file is written for the configured policy; a
 * file for another policy, or a corrupt one, stops the kubelet with upstream's message (the node
 * must be drained first). The same file, byte for byte, lets the upstream kubelet come back.
 */
export async function restoreResourceManagerState(options: ResourceManagerStateOptions): Promise<void> {
  const store = options.store ?? createCheckpointManager({ dir: options.rootDir });
  const path = join(options.rootDir, MEMORY_MANAGER_STATE_FILE);
  const policy = options.memoryManagerPolicy;
  let problem: string;
  try {
    const found = decodeMemoryManagerState(await store.read(MEMORY_MANAGER_STATE_FILE), path).policyName;
    if (found === policy) {
      options.logger.info('Restored the memory manager state from its checkpoint', { path, policy });
      return;
    }
    problem = `[memorymanager] configured policy ${JSON.stringify(policy)} differs from state checkpoint policy ${JSON.stringify(found)}`;
  } catch (err) {
    if (!CheckpointError.is(err, 'NOT_FOUND')) throw restoreStateError('memory manager', path, errorMessage(err));
    await store.write(MEMORY_MANAGER_STATE_FILE, encodeMemoryManagerState({ policyName: policy, machineState: {}, entries: {} }));
    options.logger.info('Wrote a new memory manager checkpoint', { path, policy });
    return;
  }
  throw restoreStateError('memory manager', path, problem);
}
