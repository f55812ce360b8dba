import type { FsStats } from '../types.js';

/** RFC 3339 with milliseconds, as the summary API's times. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A CRI UInt64Value as a number; undefined when absent or not a number. */
export function num(value: { value: string } | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number(value.value);
  return Number.isFinite(n) ? n : undefined;
}

export function optionalNum<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

/** Only the fields of an FsStats that describe the filesystem (not its use). */
export function fsCapacity(fs: FsStats | undefined): Omit<FsStats, 'time' | 'usedBytes' | 'inodesUsed'> {
  if (fs === undefined) return {};
  const { availableBytes, capacityBytes, inodes, inodesFree } = fs;
  return {
    ...(availableBytes !== undefined ? { availableBytes } : {}),
    ...(capacityBytes !== undefined ? { capacityBytes } : {}),
    ...(inodes !== undefined ? { inodes } : {}),
    ...(inodesFree !== undefined ? { inodesFree } : {}),
  };
}
