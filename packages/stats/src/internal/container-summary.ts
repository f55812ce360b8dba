import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { KUBERNETES_CONTAINER_NAME_LABEL } from '@kubelet-ts/container-runtime';
import type { Container, ContainerStats as CriContainerStats } from '@kubelet-ts/cri-client';
import { isNotFound } from '../host.js';
import type { ContainerStats, CPUStats, MemoryStats } from '../types.js';
import { fsCapacity, iso, num, optionalNum } from './figures.js';
import { filesUsage } from './file-usage.js';
import { nanosToMs } from './parse.js';
import { containerMemoryLimit } from './pod-limits.js';
import type { PodCollection, SummaryContext } from './summary-context.js';

/** One running container to measure, with the CRI stats the runtime listed for it. */
export interface ContainerTarget {
  pod: Pod;
  container: Container;
  stats: CriContainerStats | undefined;
  /** `<podLogsDir>/<ns>_<name>_<uid>`. */
  podLogDir: string;
  log: Logger;
}

function containerCpu(ctx: SummaryContext, c: PodCollection, container: Container, cpu: CriContainerStats['cpu'] | undefined): CPUStats {
  if (!cpu) return { time: c.time, usageCoreNanoSeconds: 0, usageNanoCores: 0 };
  const ms = nanosToMs(cpu.timestamp) ?? c.nowMs;
  const usage = num(cpu.usageCoreNanoSeconds);
  // Upstream overlays cadvisor's rate, computed from successive cgroup samples, on the runtime's
  // figure; ours comes from successive CRI samples. The runtime's own usageNanoCores (containerd
  // 1.6 reports 0 between its own samples) is used only until we have two samples.
  const fromRuntime = num(cpu.usageNanoCores);
  const tsNs = cpu.timestamp !== '' && cpu.timestamp !== '0' ? Number(cpu.timestamp) : c.nowMs * 1e6;
  const computed = usage !== undefined ? ctx.rates.update(`container/${container.id}`, usage, tsNs) : undefined;
  const nanoCores = computed ?? fromRuntime;
  return {
    time: iso(ms),
    ...(usage !== undefined ? { usageCoreNanoSeconds: usage } : {}),
    ...(nanoCores !== undefined ? { usageNanoCores: nanoCores } : {}),
  };
}

function containerMemory(c: PodCollection, pod: Pod, name: string, memory: CriContainerStats['memory'] | undefined): MemoryStats {
  if (!memory) return { time: c.time, workingSetBytes: 0 };
  const ws = num(memory.workingSetBytes);
  // As upstream (cadvisor): limit − working set when the container has a memory limit. The runtime's
  // availableBytes is not used: containerd reports 0 for a container without a limit.
  const limit = containerMemoryLimit(pod, name);
  const available = limit !== undefined && ws !== undefined ? Math.max(0, limit - ws) : undefined;
  return {
    time: iso(nanosToMs(memory.timestamp) ?? c.nowMs),
    ...(available !== undefined ? { availableBytes: available } : {}),
    ...optionalNum('usageBytes', num(memory.usageBytes)),
    ...optionalNum('workingSetBytes', ws),
    ...optionalNum('rssBytes', num(memory.rssBytes)),
    ...optionalNum('pageFaults', num(memory.pageFaults)),
    ...optionalNum('majorPageFaults', num(memory.majorPageFaults)),
  };
}

/** Upstream makeContainerStats: CPU, memory and the writable layer from CRI; logs from the container's log directory. */
export async function containerStats(ctx: SummaryContext, c: PodCollection, t: ContainerTarget): Promise<ContainerStats> {
  const { container, stats, log } = t;
  const name = container.metadata?.name ?? container.labels[KUBERNETES_CONTAINER_NAME_LABEL] ?? '';
  const result: ContainerStats = { name, startTime: iso(nanosToMs(container.createdAt) ?? c.nowMs) };
  result.cpu = containerCpu(ctx, c, container, stats?.cpu);
  result.memory = containerMemory(c, t.pod, name, stats?.memory);
  const layer = stats?.writableLayer;
  if (layer) {
    const mountpoint = layer.fsId?.mountpoint ?? '';
    const fs = mountpoint !== '' ? await c.fsInfo(mountpoint) : undefined;
    result.rootfs = {
      time: iso(nanosToMs(layer.timestamp) ?? c.nowMs),
      ...fsCapacity(fs),
      ...optionalNum('usedBytes', num(layer.usedBytes)),
      ...optionalNum('inodesUsed', num(layer.inodesUsed)),
    };
  }
  try {
    const logs = await filesUsage(ctx, join(t.podLogDir, name), c.time, c.rootFs);
    if (logs !== undefined) result.logs = logs;
  } catch (err) {
    (isNotFound(err) ? log.debug : log.warn).call(log, 'Unable to fetch container log stats', {
      containerName: name,
      err: errorMessage(err),
    });
  }
  return result;
}
