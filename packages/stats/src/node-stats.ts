import { join } from 'node:path';
import type { HostFs, StatfsInfo } from './host.js';
import { isNotFound } from './host.js';
import {
  parseBootTimeSeconds,
  parseKeyValues,
  parseLoadavgTasks,
  parseMemTotalBytes,
  parseNetDev,
  parseProcStatCpuNs,
  parseUint,
} from './internal/parse.js';
import type { FsStats, NetworkStats, RlimitStats } from './types.js';

export type CgroupMode = 'v1' | 'v2';

/** Where the node figures are read: a fake tree in tests, the real `/proc` and `/sys/fs/cgroup` on a node. */
export interface NodeStatsPaths {
  fs: HostFs;
  /** Default `/proc`. */
  procPath: string;
  /** The cgroup filesystem root; default `/sys/fs/cgroup`. */
  cgroupFsPath: string;
  /** Detected when not given: v2 when `<cgroupFsPath>/cgroup.controllers` exists. */
  cgroupMode?: CgroupMode;
}

/** The root cgroup's memory, as cadvisor reports the machine's. */
export interface RootMemory {
  usageBytes: number;
  /** usage − inactive file pages, never negative. */
  workingSetBytes: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

async function readText(fs: HostFs, path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function detectCgroupMode(fs: HostFs, cgroupFsPath: string): Promise<CgroupMode> {
  return (await readText(fs, join(cgroupFsPath, 'cgroup.controllers'))) !== undefined ? 'v2' : 'v1';
}

/** v1 hierarchies mounted under names that vary by distribution; the first one present wins. */
const V1_CPUACCT_DIRS = ['cpuacct', 'cpu,cpuacct', 'cpuacct,cpu', 'cpu'];

/**
 * Cumulative CPU time of the whole node in ns: the root cgroup's (v1 `cpuacct.usage`, v2 `cpu.stat`
 * usage_usec × 1000), else the busy time of /proc/stat.
 */
export async function readNodeCpuNs(paths: NodeStatsPaths, mode: CgroupMode): Promise<number> {
  const { fs, cgroupFsPath, procPath } = paths;
  if (mode === 'v2') {
    const text = await readText(fs, join(cgroupFsPath, 'cpu.stat'));
    const usec = text === undefined ? undefined : parseKeyValues(text).get('usage_usec');
    if (usec !== undefined) return usec * 1000;
  } else {
    for (const dir of V1_CPUACCT_DIRS) {
      const text = await readText(fs, join(cgroupFsPath, dir, 'cpuacct.usage'));
      const value = text === undefined ? undefined : parseUint(text);
      if (value !== undefined) return value;
    }
  }
  const stat = await fs.readFile(join(procPath, 'stat'));
  const ns = parseProcStatCpuNs(stat);
  if (ns === undefined) throw new Error(`no cpu line in ${join(procPath, 'stat')}`);
  return ns;
}

/**
 * The root cgroup's memory. v1: `memory.usage_in_bytes` and `memory.stat`'s total_* counters; v2
 * (the root has no memory.current): usage = anon + file of the root's `memory.stat`, as runc
 * emulates it. Working set = usage − inactive_file, as cadvisor.
 */
export async function readRootMemory(paths: NodeStatsPaths, mode: CgroupMode): Promise<RootMemory> {
  const { fs, cgroupFsPath } = paths;
  if (mode === 'v2') {
    const stat = parseKeyValues(await fs.readFile(join(cgroupFsPath, 'memory.stat')));
    const usageBytes = (stat.get('anon') ?? 0) + (stat.get('file') ?? 0);
    return {
      usageBytes,
      workingSetBytes: Math.max(0, usageBytes - (stat.get('inactive_file') ?? 0)),
      ...optional('rssBytes', stat.get('anon')),
      ...optional('pageFaults', stat.get('pgfault')),
      ...optional('majorPageFaults', stat.get('pgmajfault')),
    };
  }
  const dir = join(cgroupFsPath, 'memory');
  const usageText = await fs.readFile(join(dir, 'memory.usage_in_bytes'));
  const usageBytes = parseUint(usageText);
  if (usageBytes === undefined)
    throw new Error(`cannot parse ${join(dir, 'memory.usage_in_bytes')}: ${JSON.stringify(usageText.slice(0, 40))}`);
  const stat = parseKeyValues(await fs.readFile(join(dir, 'memory.stat')));
  return {
    usageBytes,
    workingSetBytes: Math.max(0, usageBytes - (stat.get('total_inactive_file') ?? 0)),
    ...optional('rssBytes', stat.get('total_rss')),
    ...optional('pageFaults', stat.get('total_pgfault')),
    ...optional('majorPageFaults', stat.get('total_pgmajfault')),
  };
}

function optional<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

/** The machine's memory capacity: /proc/meminfo MemTotal. */
export async function readMemoryCapacity(paths: NodeStatsPaths): Promise<number> {
  const file = join(paths.procPath, 'meminfo');
  const bytes = parseMemTotalBytes(await paths.fs.readFile(file));
  if (bytes === undefined) throw new Error(`no MemTotal in ${file}`);
  return bytes;
}

/** Boot time in ms since the epoch (/proc/stat btime): the node's startTime. */
export async function readBootTimeMs(paths: NodeStatsPaths): Promise<number | undefined> {
  const text = await readText(paths.fs, join(paths.procPath, 'stat'));
  const seconds = text === undefined ? undefined : parseBootTimeSeconds(text);
  return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * Upstream pidlimit.Stats: maxpid = min(kernel.pid_max, kernel.threads-max) (both limit the
 * number of tasks), curproc = the task count of /proc/loadavg. A file that cannot be read leaves
 * its figure out.
 */
export async function readRlimit(paths: NodeStatsPaths, time: string): Promise<RlimitStats> {
  const { fs, procPath } = paths;
  let maxpid: number | undefined;
  for (const file of ['sys/kernel/pid_max', 'sys/kernel/threads-max']) {
    const text = await readText(fs, join(procPath, file)).catch(() => undefined);
    const value = text === undefined ? undefined : parseUint(text);
    if (value !== undefined && (maxpid === undefined || value < maxpid)) maxpid = value;
  }
  const loadavg = await readText(fs, join(procPath, 'loadavg')).catch(() => undefined);
  const curproc = loadavg === undefined ? undefined : parseLoadavgTasks(loadavg);
  return { time, ...(maxpid !== undefined ? { maxpid } : {}), ...(curproc !== undefined ? { curproc } : {}) };
}

/**
 * A filesystem's figures as cadvisor reports them: capacity = blocks × bsize, available = bavail ×
 * bsize (what unprivileged users may still write), used = (blocks − bfree) × bsize, inodes = files,
 * inodesFree = ffree, inodesUsed = files − ffree.
 */
export function fsStatsFromStatfs(info: StatfsInfo, time: string): FsStats {
  return {
    time,
    capacityBytes: info.blocks * info.bsize,
    availableBytes: info.bavail * info.bsize,
    usedBytes: (info.blocks - info.bfree) * info.bsize,
    inodes: info.files,
    inodesFree: info.ffree,
    inodesUsed: info.files - info.ffree,
  };
}

/** The interface whose counters fill the top-level fields of network stats, as upstream (a guess it documents as unreliable). */
export const DEFAULT_NETWORK_INTERFACE = 'eth0';

/**
 * Network stats from a /proc/net/dev (the node's: `<procPath>/net/dev`), as cadvisor and upstream's
 * summary build them: every interface but loopback, veth, docker and nerdctl ones in `interfaces`,
 * and `eth0`'s counters at the top level (an empty name when there is no eth0).
 */
export async function readNetworkStats(fs: HostFs, netDevPath: string, time: string): Promise<NetworkStats> {
  const interfaces = parseNetDev(await fs.readFile(netDevPath));
  const primary = interfaces.find((i) => i.name === DEFAULT_NETWORK_INTERFACE);
  return { time, ...(primary ?? { name: '' }), interfaces };
}
