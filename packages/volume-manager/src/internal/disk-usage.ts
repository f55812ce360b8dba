import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes allocated under `path` (st_blocks × 512, as du does), not following symlinks or other filesystems' mounts. */
export async function diskUsage(path: string): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined) return 0;
  let total = info.blocks * 512;
  if (info.isDirectory()) {
    const entries = await readdir(path).catch(() => [] as string[]);
    for (const name of entries) {
      const child = await lstat(join(path, name)).catch(() => undefined);
      if (child === undefined) continue;
      if (child.isDirectory()) {
        if (child.dev === info.dev) total += await diskUsage(join(path, name));
      } else {
        total += child.blocks * 512;
      }
    }
  }
  return total;
}
