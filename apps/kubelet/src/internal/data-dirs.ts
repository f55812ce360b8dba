import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@kubelet-ts/common';
import {
  CheckpointError,
  MEMORY_MANAGER_STATE_FILE,
  createCheckpointManager,
  decodeMemoryManagerState,
  encodeMemoryManagerState,
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
  await restore(store, options, {
    file: MEMORY_MANAGER_STATE_FILE,
    what: 'memory manager',
    policy: options.memoryManagerPolicy,
    prefix: '[memorymanager] ',
    policyOf: (data, source) => decodeMemoryManagerState(data, source).policyName,
    fresh: () => encodeMemoryManagerState({ policyName: options.memoryManagerPolicy, machineState: {}, entries: {} }),
  });
}

interface ManagerCheckpoint {
  file: string;
  what: string;
  policy: string;
  prefix: string;
  policyOf: (data: Uint8Array, source: string) => string;
  fresh: () => Buffer;
}

async function restore(store: CheckpointManager, options: ResourceManagerStateOptions, m: ManagerCheckpoint): Promise<void> {
  const path = join(options.rootDir, m.file);
  let problem: string;
  try {
    const policy = m.policyOf(await store.read(m.file), path);
    if (policy === m.policy) {
      options.logger.info(`Restored the ${m.what} state from its checkpoint`, { path, policy });
      return;
    }
    problem = `${m.prefix}configured policy ${JSON.stringify(m.policy)} differs from state checkpoint policy ${JSON.stringify(policy)}`;
  } catch (err) {
    if (!CheckpointError.is(err, 'NOT_FOUND')) {
      problem = err instanceof Error ? err.message : String(err);
    } else {
      await store.write(m.file, m.fresh());
      options.logger.info(`Wrote a new ${m.what} checkpoint`, { path, policy: m.policy });
      return;
    }
  }
  throw new CheckpointError(
    'INVALID',
    `could not restore state from checkpoint: ${problem}, please drain this node and delete the ${m.what} checkpoint file ${JSON.stringify(path)} before restarting Kubelet`,
  );
}
