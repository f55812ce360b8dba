import { lstat, readdir, readFile, statfs } from 'node:fs/promises';
import { join } from 'node:path';

/** What statfs(2) reports, in blocks of `bsize` bytes (Node's fs.statfs). */
export interface StatfsInfo {
  bsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
}

export interface HostDirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
}

/** lstat(2) as far as disk usage goes: `blocks` are 512-byte units, as du counts them. */
export interface HostFileStat {
  size: number;
  blocks: number;
  dev: number;
  ino: number;
  isFile: boolean;
  isDirectory: boolean;
}

/**
 * The host reads every node and pod figure comes from: /proc, the cgroup filesystem, statfs and the
 * log and volume directories. The real one is {@link createHostFs}; unit tests use `FakeHostFs`.
 * Missing paths reject with an error whose `code` is `ENOENT`, as node:fs does.
 */
export interface HostFs {
  readFile(path: string): Promise<string>;
  statfs(path: string): Promise<StatfsInfo>;
  readdir(path: string): Promise<HostDirEntry[]>;
  lstat(path: string): Promise<HostFileStat>;
}

/** The real host through node:fs. */
export function createHostFs(): HostFs {
  return {
    readFile: (path) => readFile(path, 'utf8'),
    async statfs(path) {
      const s = await statfs(path);
      return { bsize: s.bsize, blocks: s.blocks, bfree: s.bfree, bavail: s.bavail, files: s.files, ffree: s.ffree };
    },
    async readdir(path) {
      const entries = await readdir(path, { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, isFile: e.isFile(), isDirectory: e.isDirectory() }));
    },
    async lstat(path) {
      const s = await lstat(path);
      return { size: s.size, blocks: s.blocks, dev: s.dev, ino: s.ino, isFile: s.isFile(), isDirectory: s.isDirectory() };
    },
  };
}

/** Bytes and inodes used under a path. */
export interface DiskUsage {
  usedBytes: number;
  inodesUsed: number;
}

/**
 * What upstream's MetricsDu measures: `du -x` (allocated 512-byte blocks, hard links once, not
 * crossing into other filesystems) and the number of inodes under the path, the path itself included.
 * Entries that vanish while walking are skipped.
 */
export async function diskUsage(fs: HostFs, path: string): Promise<DiskUsage> {
  const root = await fs.lstat(path);
  const seen = new Set<string>();
  let usedBytes = 0;
  let inodesUsed = 0;
  const visit = async (p: string, st: HostFileStat): Promise<void> => {
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    usedBytes += st.blocks * 512;
    inodesUsed += 1;
    if (!st.isDirectory) return;
    let entries: HostDirEntry[];
    try {
      entries = await fs.readdir(p);
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    for (const entry of entries) {
      const child = join(p, entry.name);
      let cst: HostFileStat;
      try {
        cst = await fs.lstat(child);
      } catch (err) {
        if (isNotFound(err)) continue;
        throw err;
      }
      if (cst.dev !== root.dev) continue; // du -x
      await visit(child, cst);
    }
  };
  await visit(path, root);
  return { usedBytes, inodesUsed };
}

/** True for node:fs's "no such file or directory". */
export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}
