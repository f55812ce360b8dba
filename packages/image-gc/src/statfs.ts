import { promises as fs } from 'node:fs';

/** Capacity and available bytes of the filesystem holding `path` (statfs: blocks and bavail, as cadvisor reads them). */
export async function statfsBytes(path: string): Promise<{ capacityBytes: number; availableBytes: number }> {
  const s = await fs.statfs(path);
  return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
}
