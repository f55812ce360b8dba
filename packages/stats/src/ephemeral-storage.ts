import { fsCapacity } from './internal/figures.js';
import type { ContainerStats, FsStats, VolumeStats } from './types.js';

function addUsage(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a + b;
}

function laterTime(a: string, b: string | undefined): string {
  return b !== undefined && Date.parse(b) > Date.parse(a) ? b : a;
}

/**
 * Upstream calcEphemeralStorage (CRI stats provider): the node filesystem's capacity figures, and as
 * use the containers' writable layers and logs (logs only with a writable layer, as upstream), the
 * pod's ephemeral volumes, the pod log directory's own files and the pod's etc-hosts file.
 */
export function ephemeralStorage(
  containers: readonly ContainerStats[],
  ephemeralVolumes: readonly VolumeStats[],
  rootFs: FsStats | undefined,
  time: string,
  extra: ReadonlyArray<FsStats | undefined> = [],
): FsStats {
  const result: FsStats = { time: rootFs?.time ?? time, ...fsCapacity(rootFs) };
  const add = (s: { usedBytes?: number; inodesUsed?: number; time: string }): void => {
    const used = addUsage(result.usedBytes, s.usedBytes);
    const inodes = addUsage(result.inodesUsed, s.inodesUsed);
    if (used !== undefined) result.usedBytes = used;
    if (inodes !== undefined) result.inodesUsed = inodes;
    result.time = laterTime(result.time, s.time);
  };
  for (const c of containers) {
    if (c.rootfs === undefined) continue;
    add(c.rootfs);
    if (c.logs !== undefined) add(c.logs);
  }
  for (const v of ephemeralVolumes) add(v);
  for (const s of extra) if (s !== undefined) add(s);
  return result;
}
