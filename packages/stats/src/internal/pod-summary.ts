import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PodSandbox } from '@kubelet-ts/cri-client';
import { ephemeralStorage } from '../ephemeral-storage.js';
import { readNetworkStats } from '../node-stats.js';
import type { CgroupUsage, ContainerStats, CPUStats, MemoryStats, NetworkStats, PodStats, VolumeStats } from '../types.js';
import { cgroupCpu, cgroupMemory } from './cgroup-stats.js';
import { containerStats } from './container-summary.js';
import { iso } from './figures.js';
import { filesUsage, pathUsage } from './file-usage.js';
import { nanosToMs } from './parse.js';
import { ephemeralVolumeNames, podMemoryLimit } from './pod-limits.js';
import type { RuntimeSnapshot } from './runtime-snapshot.js';
import type { PodCollection, SummaryContext } from './summary-context.js';

/** Upstream's fallback when the pod cgroup cannot be read: the sum of its containers' CPU and memory. */
function sumContainers(containers: ContainerStats[], time: string): { cpu: CPUStats; memory: MemoryStats } {
  const cpu: CPUStats = { time, usageCoreNanoSeconds: 0, usageNanoCores: 0 };
  const memory: MemoryStats = { time, usageBytes: 0, workingSetBytes: 0, rssBytes: 0, pageFaults: 0, majorPageFaults: 0 };
  for (const c of containers) {
    cpu.usageCoreNanoSeconds = (cpu.usageCoreNanoSeconds ?? 0) + (c.cpu?.usageCoreNanoSeconds ?? 0);
    cpu.usageNanoCores = (cpu.usageNanoCores ?? 0) + (c.cpu?.usageNanoCores ?? 0);
    memory.usageBytes = (memory.usageBytes ?? 0) + (c.memory?.usageBytes ?? 0);
    memory.workingSetBytes = (memory.workingSetBytes ?? 0) + (c.memory?.workingSetBytes ?? 0);
    memory.rssBytes = (memory.rssBytes ?? 0) + (c.memory?.rssBytes ?? 0);
    memory.pageFaults = (memory.pageFaults ?? 0) + (c.memory?.pageFaults ?? 0);
    memory.majorPageFaults = (memory.majorPageFaults ?? 0) + (c.memory?.majorPageFaults ?? 0);
  }
  return { cpu, memory };
}

/** The counters of /proc/<infra pid>/net/dev: the sandbox's network namespace. */
async function podNetwork(ctx: SummaryContext, sandboxId: string, time: string): Promise<NetworkStats | undefined> {
  let pid = ctx.sandboxPids.get(sandboxId);
  if (pid === undefined) {
    const status = await ctx.runtimeService.podSandboxStatus({ podSandboxId: sandboxId, verbose: true });
    const parsed: unknown = JSON.parse(status.info['info'] ?? '{}');
    const value = typeof parsed === 'object' && parsed !== null ? (parsed as { pid?: unknown }).pid : undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return undefined;
    pid = value;
    ctx.sandboxPids.set(sandboxId, pid);
  }
  return readNetworkStats(ctx.paths.fs, join(ctx.paths.procPath, String(pid), 'net', 'dev'), time);
}

/** A failed optional read is logged at debug and stands as `fallback`. */
async function orElse<T>(log: Logger, what: string, read: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await read();
  } catch (err) {
    log.debug(what, { err: errorMessage(err) });
    return fallback;
  }
}

/** The pod's CPU and memory: its cgroup's when readable, else the sum of its containers'. */
async function podCpuAndMemory(
  ctx: SummaryContext,
  c: PodCollection,
  pod: Pod,
  containers: ContainerStats[],
  log: Logger,
): Promise<Partial<Pick<PodStats, 'cpu' | 'memory'>>> {
  const read = ctx.podCgroupStats;
  const usage: CgroupUsage | undefined =
    read === undefined
      ? undefined
      : await orElse(log, 'Failed to get the pod cgroup stats; summing its containers', () => read(pod), undefined);
  if (usage !== undefined)
    return { cpu: cgroupCpu(ctx, c, `pod/${pod.metadata.uid}`, usage), memory: cgroupMemory(usage, podMemoryLimit(pod), c.time) };
  return containers.length > 0 ? sumContainers(containers, c.time) : {};
}

/**
 * Upstream makePodStats (CRI stats provider): the pod's ready (else newest) sandbox, its running
 * containers, network, CPU and memory, process count, volumes and ephemeral storage. Undefined for
 * a pod without a sandbox.
 */
export async function podStats(ctx: SummaryContext, c: PodCollection, pod: Pod, snapshot: RuntimeSnapshot): Promise<PodStats | undefined> {
  const { uid, name, namespace = 'default' } = pod.metadata as { uid: string; name: string; namespace?: string };
  const sandboxes = snapshot.sandboxesByUid.get(uid);
  if (sandboxes === undefined || sandboxes.length === 0) return undefined;
  // Upstream removeTerminatedPods: the ready sandbox, else the newest.
  const byAge = [...sandboxes].sort((a, b) => (BigInt(a.createdAt || '0') < BigInt(b.createdAt || '0') ? -1 : 1));
  const sandbox: PodSandbox | undefined = byAge.find((s) => s.state === 'SANDBOX_READY') ?? byAge[byAge.length - 1];
  const log = ctx.logger.child({ pod: `${namespace}/${name}`, podUID: uid });
  const podLogDir = join(ctx.podLogsDir, `${namespace}_${name}_${uid}`);

  const containers: ContainerStats[] = [];
  for (const container of snapshot.containersByUid.get(uid) ?? []) {
    containers.push(await containerStats(ctx, c, { pod, container, stats: snapshot.statsById.get(container.id), podLogDir, log }));
  }
  const result: PodStats = {
    podRef: { name, namespace, uid },
    startTime: iso(nanosToMs(sandbox?.createdAt) ?? (pod.status?.startTime !== undefined ? Date.parse(pod.status.startTime) : c.nowMs)),
    containers,
  };
  // Upstream (cadvisor) has network stats only for pods in their own network namespace.
  if (sandbox !== undefined && sandbox.state === 'SANDBOX_READY' && pod.spec.hostNetwork !== true) {
    const network = await orElse(log, 'Failed to read the pod network stats', () => podNetwork(ctx, sandbox.id, c.time), undefined);
    if (network !== undefined) result.network = network;
  }
  Object.assign(result, await podCpuAndMemory(ctx, c, pod, containers, log));
  const countProcesses = ctx.podProcessCount;
  if (countProcesses !== undefined) {
    const count = await orElse(log, 'Failed to count the pod processes', () => countProcesses(pod), undefined);
    if (count !== undefined) result.process_stats = { process_count: count };
  }
  const readVolumes = ctx.volumeStats;
  const volumes: VolumeStats[] =
    readVolumes === undefined ? [] : await orElse(log, 'Failed to get the pod volume stats', () => readVolumes(pod), []);
  if (volumes.length > 0) result.volume = volumes;
  const ephemeralNames = ephemeralVolumeNames(pod);
  const podLogs = await orElse(log, 'Unable to fetch pod log stats', () => filesUsage(ctx, podLogDir, c.time, c.rootFs), undefined);
  const etcHosts = await pathUsage(ctx, join(ctx.rootDir, 'pods', uid, 'etc-hosts'), c.time).catch(() => undefined);
  result['ephemeral-storage'] = ephemeralStorage(
    containers,
    volumes.filter((v) => ephemeralNames.has(v.name)),
    c.rootFs,
    c.time,
    [podLogs, etcHosts],
  );
  return result;
}
