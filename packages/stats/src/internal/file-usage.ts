import { join } from 'node:path';
import { diskUsage, isNotFound } from '../host.js';
import type { FsStats } from '../types.js';
import { fsCapacity } from './figures.js';
import type { SummaryContext } from './summary-context.js';

/** Upstream fileMetricsByDir: the files directly in `dir` (not its subdirectories), each measured as du does. */
export async function filesUsage(ctx: SummaryContext, dir: string, time: string, rootFs: FsStats | undefined): Promise<FsStats> {
  const entries = await ctx.paths.fs.readdir(dir);
  let usedBytes = 0;
  let inodesUsed = 0;
  for (const entry of entries) {
    if (entry.isDirectory) continue;
    try {
      const st = await ctx.paths.fs.lstat(join(dir, entry.name));
      usedBytes += st.blocks * 512;
      inodesUsed += 1;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  return { time, ...fsCapacity(rootFs), usedBytes, inodesUsed };
}

/** A file or directory tree measured as du does. */
export async function pathUsage(ctx: SummaryContext, path: string, time: string): Promise<FsStats> {
  const usage = await diskUsage(ctx.paths.fs, path);
  return { time, ...usage };
}
