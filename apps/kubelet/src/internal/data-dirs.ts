import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Upstream setupDataDirs: the root dir's layout, with upstream's modes, so that either kubelet
 * finds what it expects on a node the other one ran (`checkpoints` only as upstream makes it
 * with the container checkpoint feature, which kubelet-ts does not have). The CPU and memory
 * managers restore their own checkpoints (internal/cpu-manager.ts, internal/memory-manager.ts).
 */
export async function setupDataDirs(rootDir: string, podLogsDir: string): Promise<void> {
  await mkdir(rootDir, { recursive: true, mode: 0o750 });
  await mkdir(podLogsDir, { recursive: true, mode: 0o750 });
  for (const dir of ['pods', 'plugins', 'plugins_registry', 'pod-resources'])
    await mkdir(join(rootDir, dir), { recursive: true, mode: 0o750 });
}
