import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The unix sockets under `dir` (recursively, names starting with a dot skipped) by path, with their identity (inode and change time). */
export async function scanSockets(dir: string, out = new Map<string, string>()): Promise<Map<string, string>> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  });
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await scanSockets(path, out);
    else if (entry.isSocket()) {
      const info = await lstat(path, { bigint: true }).catch(() => undefined);
      if (info !== undefined) out.set(path, `${info.ino}:${info.ctimeNs}`);
    }
  }
  return out;
}
