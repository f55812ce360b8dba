import type { CgroupUsage, CPUStats, MemoryStats } from '../types.js';
import type { Collection, SummaryContext } from './summary-context.js';

/** A cgroup's cumulative CPU, with the rate since its last sample under `key`. */
export function cgroupCpu(ctx: SummaryContext, c: Collection, key: string, usage: CgroupUsage): CPUStats {
  const usageNanoCores = ctx.rates.update(key, usage.cpuUsageNanoseconds, c.nowMs * 1e6);
  return { time: c.time, usageCoreNanoSeconds: usage.cpuUsageNanoseconds, ...(usageNanoCores !== undefined ? { usageNanoCores } : {}) };
}

/** A cgroup's memory; available is limit − working set when there is a limit. */
export function cgroupMemory(usage: CgroupUsage, limit: number | undefined, time: string): MemoryStats {
  return {
    time,
    usageBytes: usage.memoryUsageBytes,
    workingSetBytes: usage.memoryWorkingSetBytes,
    ...(limit !== undefined ? { availableBytes: Math.max(0, limit - usage.memoryWorkingSetBytes) } : {}),
  };
}
