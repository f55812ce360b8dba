import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { abortable, noopLogger, systemClock } from '@kubelet-ts/common';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import { StatsError } from './errors.js';
import type { HostFs } from './host.js';
import { createHostFs } from './host.js';
import { collectSummary } from './internal/collect.js';
import { CpuRateTracker } from './internal/cpu-rate.js';
import type { SummaryContext } from './internal/summary-context.js';
import type { CgroupMode, NodeStatsPaths } from './node-stats.js';
import { detectCgroupMode } from './node-stats.js';
import type { CgroupUsage, Summary, SummaryOptions, SummaryProvider, VolumeStats } from './types.js';

export { ephemeralStorage } from './ephemeral-storage.js';
export type { CgroupUsage };

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

function createSummaryContext(options: SummaryProviderOptions): SummaryContext {
  const paths: NodeStatsPaths = {
    fs: options.host ?? createHostFs(),
    procPath: options.procPath ?? '/proc',
    cgroupFsPath: options.cgroupFsPath ?? '/sys/fs/cgroup',
    ...(options.cgroupMode !== undefined ? { cgroupMode: options.cgroupMode } : {}),
  };
  let mode: Promise<CgroupMode> | undefined;
  return {
    nodeName: options.nodeName,
    rootDir: options.rootDir,
    podLogsDir: options.podLogsDir ?? DEFAULT_POD_LOGS_DIR,
    runtimeService: options.runtimeService,
    imageService: options.imageService,
    getPods: options.getPods,
    podCgroupStats: options.podCgroupStats,
    podProcessCount: options.podProcessCount,
    volumeStats: options.volumeStats,
    podsCgroupStats: options.podsCgroupStats,
    paths,
    cgroupMode() {
      if (paths.cgroupMode !== undefined) return Promise.resolve(paths.cgroupMode);
      mode ??= detectCgroupMode(paths.fs, paths.cgroupFsPath);
      return mode;
    },
    clock: options.clock ?? systemClock,
    logger: options.logger ?? noopLogger,
    rates: new CpuRateTracker(),
    sandboxPids: new Map(),
  };
}

/** The cache in front of the collections: one collection at a time, reused for the housekeeping interval. */
class SummaryProviderImpl implements SummaryProvider {
  readonly #ctx: SummaryContext;
  readonly #intervalMs: number;
  #cached: { at: number; summary: Summary } | undefined;
  #inflight: Promise<Summary> | undefined;

  constructor(options: SummaryProviderOptions) {
    if (options.nodeName === '') throw new StatsError('INVALID_CONFIG', 'nodeName must not be empty');
    if (options.housekeepingIntervalMs !== undefined && !(options.housekeepingIntervalMs >= 0)) {
      throw new StatsError('INVALID_CONFIG', `housekeepingIntervalMs must be >= 0, got ${options.housekeepingIntervalMs}`);
    }
    this.#ctx = createSummaryContext(options);
    this.#intervalMs = options.housekeepingIntervalMs ?? DEFAULT_HOUSEKEEPING_INTERVAL_MS;
  }

  async get(options: SummaryOptions = {}): Promise<Summary> {
    options.signal?.throwIfAborted();
    if (options.podUIDs !== undefined) {
      // A subset: collected for this caller alone and never cached (a cached summary must be complete).
      const subset = collectSummary(this.#ctx, options.podUIDs);
      return options.signal === undefined ? await subset : await abortable(subset, options.signal);
    }
    const cached = this.#cached;
    if (options.updateStats !== true && cached !== undefined && this.#ctx.clock.now() - cached.at < this.#intervalMs) {
      return structuredClone(cached.summary);
    }
    if (this.#inflight === undefined) {
      const startedAt = this.#ctx.clock.now();
      this.#inflight = collectSummary(this.#ctx)
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
