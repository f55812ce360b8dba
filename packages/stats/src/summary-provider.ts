import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { KUBERNETES_CONTAINER_NAME_LABEL, KUBERNETES_POD_UID_LABEL } from '@kubelet-ts/container-runtime';
import type { Container, ContainerStats as CriContainerStats, ImageService, PodSandbox, RuntimeService } from '@kubelet-ts/cri-client';
import { StatsError } from './errors.js';
import type { HostFs } from './host.js';
import { createHostFs, diskUsage, isNotFound } from './host.js';
import { CpuRateTracker } from './internal/cpu-rate.js';
import { nanosToMs } from './internal/parse.js';
import { containerMemoryLimit, ephemeralVolumeNames, podMemoryLimit } from './internal/pod-limits.js';
import type { CgroupMode, NodeStatsPaths } from './node-stats.js';
import { detectCgroupMode, fsStatsFromStatfs, readBootTimeMs, readMemoryCapacity, readNetworkStats, readNodeCpuNs, readRlimit, readRootMemory } from './node-stats.js';
import type { ContainerStats, CPUStats, FsStats, MemoryStats, NetworkStats, NodeStats, PodStats, RuntimeStats, Summary, SummaryOptions, SummaryProvider, VolumeStats } from './types.js';

/** Cumulative CPU and memory of a cgroup: structurally cgroup-manager's CgroupStats. */
export interface CgroupUsage {
  /** Cumulative CPU time, ns. */
  cpuUsageNanoseconds: number;
  memoryUsageBytes: number;
  /** Usage minus inactive file pages. */
  memoryWorkingSetBytes: number;
}

/** Upstream's default cadvisor housekeeping interval: how old a cached summary may be. */
export const DEFAULT_HOUSEKEEPING_INTERVAL_MS = 10_000;
/** Upstream's default podLogsDir. */
export const DEFAULT_POD_LOGS_DIR = '/var/log/pods';

export interface SummaryProviderOptions {
  nodeName: string;
  /** The kubelet's `--root-dir`: nodefs is the filesystem holding it; pods' etc-hosts live under `<rootDir>/pods/<uid>`. */
  rootDir: string;
  /** `podLogsDir`; default `/var/log/pods`. Container logs are `<podLogsDir>/<ns>_<name>_<uid>/<container>/`. */
  podLogsDir?: string;
  /** `podSandboxStatus` (verbose) gives the sandbox's pid, whose network namespace holds the pod's network counters. */
  runtimeService: Pick<RuntimeService, 'listContainerStats' | 'listContainers' | 'listPodSandbox' | 'podSandboxStatus'>;
  imageService: Pick<ImageService, 'imageFsInfo'>;
  /** The pods the kubelet manages (with status). Only those with a sandbox in the runtime are reported. */
  getPods: () => readonly Pod[] | Promise<readonly Pod[]>;
  /** The pod cgroup's usage (kubelet: `containerManager.podContainerManager.podStats`); without it, the sum of the containers'. */
  podCgroupStats?: (pod: Pod) => Promise<CgroupUsage>;
  /** The number of processes in the pod cgroup (pids controller); without it, process_stats is left out. */
  podProcessCount?: (pod: Pod) => Promise<number | undefined>;
  /** The pod's measurable volumes (see createVolumeStatsSource); without it, no volume stats. */
  volumeStats?: (pod: Pod) => Promise<VolumeStats[]>;
  /** The cgroup of all pods (kubepods), reported as the `pods` system container (allocatable eviction reads it). */
  podsCgroupStats?: () => Promise<CgroupUsage & { memoryLimitBytes?: number }>;
  /** Host reads; default the real node:fs. */
  host?: HostFs;
  /** Default `/proc`. */
  procPath?: string;
  /** Default `/sys/fs/cgroup`. */
  cgroupFsPath?: string;
  /** Detected from `<cgroupFsPath>` when not given. */
  cgroupMode?: CgroupMode;
  /** How old a summary `get()` may return without `updateStats`; default 10 s. */
  housekeepingIntervalMs?: number;
  clock?: Clock;
  logger?: Logger;
}

interface RuntimeSnapshot {
  sandboxesByUid: Map<string, PodSandbox[]>;
  /** Running containers by pod UID (through their sandbox). */
  containersByUid: Map<string, Container[]>;
  statsById: Map<string, CriContainerStats>;
}

const EMPTY_SNAPSHOT: RuntimeSnapshot = { sandboxesByUid: new Map(), containersByUid: new Map(), statsById: new Map() };
/** Collections of a subset of pods a left-out pod's CPU samples survive (30 × the 10 s eviction check). */
const SUBSET_SWEEP_GRACE_ROUNDS = 30;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function num(value: { value: string } | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number(value.value);
  return Number.isFinite(n) ? n : undefined;
}

function addUsage(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a + b;
}

function laterTime(a: string, b: string | undefined): string {
  return b !== undefined && Date.parse(b) > Date.parse(a) ? b : a;
}

/** Only the fields of an FsStats that describe the filesystem (not its use). */
function fsCapacity(fs: FsStats | undefined): Omit<FsStats, 'time' | 'usedBytes' | 'inodesUsed'> {
  if (fs === undefined) return {};
  const { availableBytes, capacityBytes, inodes, inodesFree } = fs;
  return {
    ...(availableBytes !== undefined ? { availableBytes } : {}),
    ...(capacityBytes !== undefined ? { capacityBytes } : {}),
    ...(inodes !== undefined ? { inodes } : {}),
    ...(inodesFree !== undefined ? { inodesFree } : {}),
  };
}

class SummaryProviderImpl implements SummaryProvider {
  readonly #o: SummaryProviderOptions;
  readonly #paths: NodeStatsPaths;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #intervalMs: number;
  readonly #podLogsDir: string;
  readonly #rates = new CpuRateTracker();
  /** Sandbox ID → the pid of its infra process (stable for the sandbox's life). */
  #sandboxPids = new Map<string, number>();
  #mode: Promise<CgroupMode> | undefined;
  #cached: { at: number; summary: Summary } | undefined;
  #inflight: Promise<Summary> | undefined;

  constructor(options: SummaryProviderOptions) {
    if (options.nodeName === '') throw new StatsError('INVALID_CONFIG', 'nodeName must not be empty');
    if (options.housekeepingIntervalMs !== undefined && !(options.housekeepingIntervalMs >= 0)) {
      throw new StatsError('INVALID_CONFIG', `housekeepingIntervalMs must be >= 0, got ${options.housekeepingIntervalMs}`);
    }
    this.#o = options;
    this.#paths = {
      fs: options.host ?? createHostFs(),
      procPath: options.procPath ?? '/proc',
      cgroupFsPath: options.cgroupFsPath ?? '/sys/fs/cgroup',
      ...(options.cgroupMode !== undefined ? { cgroupMode: options.cgroupMode } : {}),
    };
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#intervalMs = options.housekeepingIntervalMs ?? DEFAULT_HOUSEKEEPING_INTERVAL_MS;
    this.#podLogsDir = options.podLogsDir ?? DEFAULT_POD_LOGS_DIR;
  }

  async get(options: SummaryOptions = {}): Promise<Summary> {
    options.signal?.throwIfAborted();
    if (options.podUIDs !== undefined) {
      // A subset: collected for this caller alone and never cached (a cached summary must be complete).
      const subset = this.#collect(options.podUIDs);
      return options.signal === undefined ? await subset : await abortable(subset, options.signal);
    }
    const cached = this.#cached;
    if (options.updateStats !== true && cached !== undefined && this.#clock.now() - cached.at < this.#intervalMs) {
      return structuredClone(cached.summary);
    }
    if (this.#inflight === undefined) {
      const startedAt = this.#clock.now();
      this.#inflight = this.#collect()
        .then((summary) => {
          this.#cached = { at: startedAt, summary };
          return summary;
        })
        .finally(() => {
          this.#inflight = undefined;
        });
    }
    const inflight = this.#inflight;
    const summary = options.signal === undefined ? await inflight : await abortable(inflight, options.signal);
    return structuredClone(summary);
  }

  #cgroupMode(): Promise<CgroupMode> {
    if (this.#paths.cgroupMode !== undefined) return Promise.resolve(this.#paths.cgroupMode);
    this.#mode ??= detectCgroupMode(this.#paths.fs, this.#paths.cgroupFsPath);
    return this.#mode;
  }

  /** Collects the node's figures and those of every pod, or of the pods in `only`. */
  async #collect(only?: ReadonlySet<string>): Promise<Summary> {
    const nowMs = this.#clock.now();
    const time = iso(nowMs);
    const fsInfoCache = new Map<string, Promise<FsStats | undefined>>();
    const fsInfo = (path: string): Promise<FsStats | undefined> => {
      let p = fsInfoCache.get(path);
      if (p === undefined) {
        p = this.#paths.fs.statfs(path).then(
          (info) => fsStatsFromStatfs(info, time),
          (err: unknown) => {
            this.#logger.debug('Failed to statfs a filesystem', { path, err: errorMessage(err) });
            return undefined;
          },
        );
        fsInfoCache.set(path, p);
      }
      return p;
    };

    const [node, allPods] = await Promise.all([this.#nodeStats(nowMs, time), Promise.resolve(this.#o.getPods())]);
    const pods = only === undefined ? allPods : allPods.filter((p) => only.has(p.metadata.uid));
    // Without pods to measure, the runtime's lists are not needed.
    const snapshot = only !== undefined && pods.length === 0 ? EMPTY_SNAPSHOT : await this.#runtimeSnapshot();
    const rootFs = node.fs;
    // Pods are measured concurrently (each reads a handful of files); the order of getPods is kept.
    const measured = await Promise.all(pods.map((pod) => this.#podStats(pod, snapshot, nowMs, time, rootFs, fsInfo)));
    const podStats = measured.filter((p): p is PodStats => p !== undefined);
    const imageFs = await this.#imageFs(fsInfo);
    node.runtime = imageFs;
    if (only === undefined) {
      this.#rates.sweep();
      const liveSandboxes = new Set([...snapshot.sandboxesByUid.values()].flat().map((s) => s.id));
      for (const id of [...this.#sandboxPids.keys()]) if (!liveSandboxes.has(id)) this.#sandboxPids.delete(id);
    } else {
      // Pods left out keep their CPU samples until a complete collection (about 5 minutes of 10 s checks).
      this.#rates.sweep(SUBSET_SWEEP_GRACE_ROUNDS);
    }
    return { node, pods: podStats };
  }

  async #nodeStats(nowMs: number, time: string): Promise<NodeStats> {
    const paths = this.#paths;
    const wrap = <T>(what: string, p: Promise<T>): Promise<T> => p.catch((err: unknown) => Promise.reject(StatsError.from(err, 'NODE_STATS', `failed to get ${what}`)));
    const mode = await wrap('the cgroup mode', this.#cgroupMode());
    const [cpuNs, memory, capacity, rootfs, bootMs, rlimit, pods, network] = await Promise.all([
      wrap('root cgroup cpu stats', readNodeCpuNs(paths, mode)),
      wrap('root cgroup memory stats', readRootMemory(paths, mode)),
      wrap('the machine memory capacity', readMemoryCapacity(paths)),
      wrap(`rootFs stats of ${this.#o.rootDir}`, paths.fs.statfs(this.#o.rootDir)),
      readBootTimeMs(paths).catch(() => undefined),
      readRlimit(paths, time),
      this.#podsSystemContainer(nowMs, time),
      readNetworkStats(paths.fs, join(paths.procPath, 'net', 'dev'), time).catch((err: unknown) => {
        this.#logger.debug('Failed to read the node network stats', { err: errorMessage(err) });
        return undefined;
      }),
    ]);
    const usageNanoCores = this.#rates.update('node', cpuNs, nowMs * 1e6);
    const node: NodeStats = {
      nodeName: this.#o.nodeName,
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

  async #podsSystemContainer(nowMs: number, time: string): Promise<ContainerStats | undefined> {
    if (this.#o.podsCgroupStats === undefined) return undefined;
    try {
      const usage = await this.#o.podsCgroupStats();
      return {
        name: 'pods',
        startTime: time,
        cpu: this.#cgroupCpu('sys/pods', usage, nowMs, time),
        memory: this.#cgroupMemory(usage, usage.memoryLimitBytes, time),
      };
    } catch (err) {
      this.#logger.debug('Failed to get the pods cgroup stats', { err: errorMessage(err) });
      return undefined;
    }
  }

  #cgroupCpu(key: string, usage: CgroupUsage, nowMs: number, time: string): CPUStats {
    const usageNanoCores = this.#rates.update(key, usage.cpuUsageNanoseconds, nowMs * 1e6);
    return { time, usageCoreNanoSeconds: usage.cpuUsageNanoseconds, ...(usageNanoCores !== undefined ? { usageNanoCores } : {}) };
  }

  #cgroupMemory(usage: CgroupUsage, limit: number | undefined, time: string): MemoryStats {
    return {
      time,
      usageBytes: usage.memoryUsageBytes,
      workingSetBytes: usage.memoryWorkingSetBytes,
      ...(limit !== undefined ? { availableBytes: Math.max(0, limit - usage.memoryWorkingSetBytes) } : {}),
    };
  }

  async #imageFs(fsInfo: (path: string) => Promise<FsStats | undefined>): Promise<RuntimeStats> {
    let response;
    try {
      response = await this.#o.imageService.imageFsInfo({});
    } catch (err) {
      throw StatsError.from(err, 'RUNTIME', 'failed to get imageFs stats');
    }
    const toFs = async (usage: (typeof response.imageFilesystems)[number]): Promise<FsStats> => {
      const ms = nanosToMs(usage.timestamp) ?? this.#clock.now();
      const used = num(usage.usedBytes);
      const inodesUsed = num(usage.inodesUsed);
      const mountpoint = usage.fsId?.mountpoint ?? '';
      const fs = mountpoint !== '' ? await fsInfo(mountpoint) : undefined;
      return { time: iso(ms), ...fsCapacity(fs), ...(used !== undefined ? { usedBytes: used } : {}), ...(inodesUsed !== undefined ? { inodesUsed } : {}) };
    };
    const image = response.imageFilesystems[0];
    if (image === undefined) throw new StatsError('RUNTIME', 'failed to get imageFs stats: imageFs information is unavailable');
    const imageFs = await toFs(image);
    const container = response.containerFilesystems[0];
    // Upstream's CRI stats provider reports the image filesystem as the container filesystem too
    // unless the runtime names a separate one.
    return { imageFs, containerFs: container !== undefined ? await toFs(container) : { ...imageFs } };
  }

  async #runtimeSnapshot(): Promise<RuntimeSnapshot> {
    let sandboxes: PodSandbox[];
    let containers: Container[];
    let stats: CriContainerStats[];
    try {
      [sandboxes, containers, stats] = await Promise.all([
        this.#o.runtimeService.listPodSandbox({}).then((r) => r.items),
        this.#o.runtimeService.listContainers({}).then((r) => r.containers),
        this.#o.runtimeService.listContainerStats({}).then((r) => r.stats),
      ]);
    } catch (err) {
      throw StatsError.from(err, 'RUNTIME', 'failed to list pod sandboxes, containers and their stats');
    }
    const sandboxesByUid = new Map<string, PodSandbox[]>();
    const uidBySandbox = new Map<string, string>();
    for (const s of sandboxes) {
      const uid = s.metadata?.uid ?? s.labels[KUBERNETES_POD_UID_LABEL];
      if (uid === undefined || uid === '') continue;
      uidBySandbox.set(s.id, uid);
      sandboxesByUid.set(uid, [...(sandboxesByUid.get(uid) ?? []), s]);
    }
    const containersByUid = new Map<string, Container[]>();
    // Upstream removeTerminatedContainers: only running containers count.
    for (const c of containers) {
      if (c.state !== 'CONTAINER_RUNNING') continue;
      const uid = uidBySandbox.get(c.podSandboxId) ?? c.labels[KUBERNETES_POD_UID_LABEL];
      if (uid === undefined) continue;
      containersByUid.set(uid, [...(containersByUid.get(uid) ?? []), c]);
    }
    const statsById = new Map<string, CriContainerStats>();
    for (const s of stats) if (s.attributes?.id) statsById.set(s.attributes.id, s);
    return { sandboxesByUid, containersByUid, statsById };
  }

  async #podStats(
    pod: Pod,
    snapshot: RuntimeSnapshot,
    nowMs: number,
    time: string,
    rootFs: FsStats | undefined,
    fsInfo: (path: string) => Promise<FsStats | undefined>,
  ): Promise<PodStats | undefined> {
    const { uid, name, namespace = 'default' } = pod.metadata as { uid: string; name: string; namespace?: string };
    const sandboxes = snapshot.sandboxesByUid.get(uid);
    if (sandboxes === undefined || sandboxes.length === 0) return undefined;
    // Upstream removeTerminatedPods: the ready sandbox, else the newest.
    const byAge = [...sandboxes].sort((a, b) => (BigInt(a.createdAt || '0') < BigInt(b.createdAt || '0') ? -1 : 1));
    const sandbox = byAge.find((s) => s.state === 'SANDBOX_READY') ?? byAge[byAge.length - 1];
    const log = this.#logger.child({ pod: `${namespace}/${name}`, podUID: uid });
    const podLogDir = join(this.#podLogsDir, `${namespace}_${name}_${uid}`);

    const containers: ContainerStats[] = [];
    for (const c of snapshot.containersByUid.get(uid) ?? []) {
      containers.push(await this.#containerStats(pod, c, snapshot.statsById.get(c.id), podLogDir, nowMs, time, rootFs, fsInfo, log));
    }
    const result: PodStats = {
      podRef: { name, namespace, uid },
      startTime: iso(nanosToMs(sandbox?.createdAt) ?? (pod.status?.startTime !== undefined ? Date.parse(pod.status.startTime) : nowMs)),
      containers,
    };

    // Upstream (cadvisor) has network stats only for pods in their own network namespace.
    if (sandbox !== undefined && sandbox.state === 'SANDBOX_READY' && pod.spec.hostNetwork !== true) {
      const network = await this.#podNetwork(sandbox.id, time).catch((err: unknown) => {
        log.debug('Failed to read the pod network stats', { err: errorMessage(err) });
        return undefined;
      });
      if (network !== undefined) result.network = network;
    }

    let usage: CgroupUsage | undefined;
    if (this.#o.podCgroupStats !== undefined) {
      try {
        usage = await this.#o.podCgroupStats(pod);
      } catch (err) {
        log.debug('Failed to get the pod cgroup stats; summing its containers', { err: errorMessage(err) });
      }
    }
    if (usage !== undefined) {
      result.cpu = this.#cgroupCpu(`pod/${uid}`, usage, nowMs, time);
      result.memory = this.#cgroupMemory(usage, podMemoryLimit(pod), time);
    } else if (containers.length > 0) {
      Object.assign(result, sumContainers(containers, time));
    }

    if (this.#o.podProcessCount !== undefined) {
      try {
        const count = await this.#o.podProcessCount(pod);
        if (count !== undefined) result.process_stats = { process_count: count };
      } catch (err) {
        log.debug('Failed to count the pod processes', { err: errorMessage(err) });
      }
    }

    let volumes: VolumeStats[] = [];
    if (this.#o.volumeStats !== undefined) {
      try {
        volumes = await this.#o.volumeStats(pod);
      } catch (err) {
        log.debug('Failed to get the pod volume stats', { err: errorMessage(err) });
      }
    }
    if (volumes.length > 0) result.volume = volumes;
    const ephemeralNames = ephemeralVolumeNames(pod);
    const podLogs = await this.#filesUsage(podLogDir, time, rootFs).catch((err: unknown) => {
      log.debug('Unable to fetch pod log stats', { err: errorMessage(err) });
      return undefined;
    });
    const etcHosts = await this.#pathUsage(join(this.#o.rootDir, 'pods', uid, 'etc-hosts'), time).catch(() => undefined);
    result['ephemeral-storage'] = ephemeralStorage(
      containers,
      volumes.filter((v) => ephemeralNames.has(v.name)),
      rootFs,
      time,
      [podLogs, etcHosts],
    );
    return result;
  }

  async #containerStats(
    pod: Pod,
    container: Container,
    stats: CriContainerStats | undefined,
    podLogDir: string,
    nowMs: number,
    time: string,
    rootFs: FsStats | undefined,
    fsInfo: (path: string) => Promise<FsStats | undefined>,
    log: Logger,
  ): Promise<ContainerStats> {
    const name = container.metadata?.name ?? container.labels[KUBERNETES_CONTAINER_NAME_LABEL] ?? '';
    const result: ContainerStats = { name, startTime: iso(nanosToMs(container.createdAt) ?? nowMs) };
    const cpu = stats?.cpu;
    if (cpu) {
      const ms = nanosToMs(cpu.timestamp) ?? nowMs;
      const usage = num(cpu.usageCoreNanoSeconds);
      // Upstream overlays cadvisor's rate, computed from successive cgroup samples, on the runtime's
      // figure; ours comes from successive CRI samples. The runtime's own usageNanoCores (containerd
      // 1.6 reports 0 between its own samples) is used only until we have two samples.
      const fromRuntime = num(cpu.usageNanoCores);
      const tsNs = cpu.timestamp !== '' && cpu.timestamp !== '0' ? Number(cpu.timestamp) : nowMs * 1e6;
      const computed = usage !== undefined ? this.#rates.update(`container/${container.id}`, usage, tsNs) : undefined;
      const nanoCores = computed ?? fromRuntime;
      result.cpu = { time: iso(ms), ...(usage !== undefined ? { usageCoreNanoSeconds: usage } : {}), ...(nanoCores !== undefined ? { usageNanoCores: nanoCores } : {}) };
    } else {
      result.cpu = { time, usageCoreNanoSeconds: 0, usageNanoCores: 0 };
    }
    const memory = stats?.memory;
    if (memory) {
      const ws = num(memory.workingSetBytes);
      // As upstream (cadvisor): limit − working set when the container has a memory limit. The runtime's
      // availableBytes is not used: containerd reports 0 for a container without a limit.
      const limit = containerMemoryLimit(pod, name);
      const available = limit !== undefined && ws !== undefined ? Math.max(0, limit - ws) : undefined;
      result.memory = {
        time: iso(nanosToMs(memory.timestamp) ?? nowMs),
        ...(available !== undefined ? { availableBytes: available } : {}),
        ...optionalNum('usageBytes', num(memory.usageBytes)),
        ...optionalNum('workingSetBytes', ws),
        ...optionalNum('rssBytes', num(memory.rssBytes)),
        ...optionalNum('pageFaults', num(memory.pageFaults)),
        ...optionalNum('majorPageFaults', num(memory.majorPageFaults)),
      };
    } else {
      result.memory = { time, workingSetBytes: 0 };
    }
    const layer = stats?.writableLayer;
    if (layer) {
      const mountpoint = layer.fsId?.mountpoint ?? '';
      const fs = mountpoint !== '' ? await fsInfo(mountpoint) : undefined;
      result.rootfs = {
        time: iso(nanosToMs(layer.timestamp) ?? nowMs),
        ...fsCapacity(fs),
        ...optionalNum('usedBytes', num(layer.usedBytes)),
        ...optionalNum('inodesUsed', num(layer.inodesUsed)),
      };
    }
    try {
      const logs = await this.#filesUsage(join(podLogDir, name), time, rootFs);
      if (logs !== undefined) result.logs = logs;
    } catch (err) {
      (isNotFound(err) ? log.debug : log.warn).call(log, 'Unable to fetch container log stats', { containerName: name, err: errorMessage(err) });
    }
    return result;
  }

  /** The counters of /proc/<infra pid>/net/dev: the sandbox's network namespace. */
  async #podNetwork(sandboxId: string, time: string): Promise<NetworkStats | undefined> {
    let pid = this.#sandboxPids.get(sandboxId);
    if (pid === undefined) {
      const status = await this.#o.runtimeService.podSandboxStatus({ podSandboxId: sandboxId, verbose: true });
      const parsed: unknown = JSON.parse(status.info['info'] ?? '{}');
      const value = typeof parsed === 'object' && parsed !== null ? (parsed as { pid?: unknown }).pid : undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) return undefined;
      pid = value;
      this.#sandboxPids.set(sandboxId, pid);
    }
    return readNetworkStats(this.#paths.fs, join(this.#paths.procPath, String(pid), 'net', 'dev'), time);
  }

  /** Upstream fileMetricsByDir: the files directly in `dir` (not its subdirectories), each measured as du does. */
  async #filesUsage(dir: string, time: string, rootFs: FsStats | undefined): Promise<FsStats> {
    const entries = await this.#paths.fs.readdir(dir);
    let usedBytes = 0;
    let inodesUsed = 0;
    for (const entry of entries) {
      if (entry.isDirectory) continue;
      try {
        const st = await this.#paths.fs.lstat(join(dir, entry.name));
        usedBytes += st.blocks * 512;
        inodesUsed += 1;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    return { time, ...fsCapacity(rootFs), usedBytes, inodesUsed };
  }

  async #pathUsage(path: string, time: string): Promise<FsStats> {
    const usage = await diskUsage(this.#paths.fs, path);
    return { time, ...usage };
  }
}

function optionalNum<K extends string>(key: K, value: number | undefined): { [P in K]?: number } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };
}

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

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/**
 * The kubelet's summary provider (upstream stats.SummaryProvider over the CRI stats provider):
 * node figures from the root cgroup, /proc and statfs; pods from CRI, the pod cgroups, log files
 * and volumes. `get()` returns a summary no older than the housekeeping interval; `get({
 * updateStats: true })` collects a fresh one. Concurrent calls share one collection.
 */
export function createSummaryProvider(options: SummaryProviderOptions): SummaryProvider {
  return new SummaryProviderImpl(options);
}
