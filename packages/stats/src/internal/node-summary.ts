import { join } from 'node:path';
import { errorMessage } from '@kubelet-ts/common';
import { StatsError } from '../errors.js';
import {
  fsStatsFromStatfs,
  readBootTimeMs,
  readMemoryCapacity,
  readNetworkStats,
  readNodeCpuNs,
  readRlimit,
  readRootMemory,
} from '../node-stats.js';
import type { ContainerStats, NodeStats } from '../types.js';
import { cgroupCpu, cgroupMemory } from './cgroup-stats.js';
import { iso } from './figures.js';
import type { Collection, SummaryContext } from './summary-context.js';

/** The `pods` system container: the cgroup of all pods (kubepods), when the kubelet can read it. */
async function podsSystemContainer(ctx: SummaryContext, c: Collection): Promise<ContainerStats | undefined> {
  if (ctx.podsCgroupStats === undefined) return undefined;
  try {
    const usage = await ctx.podsCgroupStats();
    return {
      name: 'pods',
      startTime: c.time,
      cpu: cgroupCpu(ctx, c, 'sys/pods', usage),
      memory: cgroupMemory(usage, usage.memoryLimitBytes, c.time),
    };
  } catch (err) {
    ctx.logger.debug('Failed to get the pods cgroup stats', { err: errorMessage(err) });
    return undefined;
  }
}

/** Upstream's node stats: the root cgroup's CPU and memory, nodefs, rlimit, the node's network and the `pods` system container. */
export async function nodeStats(ctx: SummaryContext, c: Collection): Promise<NodeStats> {
  const { paths } = ctx;
  const { nowMs, time } = c;
  const wrap = <T>(what: string, p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => Promise.reject(StatsError.from(err, 'NODE_STATS', `failed to get ${what}`)));
  const mode = await wrap('the cgroup mode', ctx.cgroupMode());
  const [cpuNs, memory, capacity, rootfs, bootMs, rlimit, pods, network] = await Promise.all([
    wrap('root cgroup cpu stats', readNodeCpuNs(paths, mode)),
    wrap('root cgroup memory stats', readRootMemory(paths, mode)),
    wrap('the machine memory capacity', readMemoryCapacity(paths)),
    wrap(`rootFs stats of ${ctx.rootDir}`, paths.fs.statfs(ctx.rootDir)),
    readBootTimeMs(paths).catch(() => undefined),
    readRlimit(paths, time),
    podsSystemContainer(ctx, c),
    readNetworkStats(paths.fs, join(paths.procPath, 'net', 'dev'), time).catch((err: unknown) => {
      ctx.logger.debug('Failed to read the node network stats', { err: errorMessage(err) });
      return undefined;
    }),
  ]);
  const usageNanoCores = ctx.rates.update('node', cpuNs, nowMs * 1e6);
  const node: NodeStats = {
    nodeName: ctx.nodeName,
    startTime: iso(bootMs ?? 0),
    cpu: { time, usageCoreNanoSeconds: cpuNs, ...(usageNanoCores !== undefined ? { usageNanoCores } : {}) },
    // Upstream: availableBytes = the root container's limit (the machine's capacity) − working set.
    memory: { time, availableBytes: Math.max(0, capacity - memory.workingSetBytes), ...memory },
    fs: fsStatsFromStatfs(rootfs, time),
    rlimit,
  };
  if (network !== undefined) node.network = network;
  if (pods !== undefined) node.systemContainers = [pods];
  return node;
}
