import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import type { ContainerManager } from '@kubelet-ts/cgroup-manager';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { durationMs } from '@kubelet-ts/config';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import { sendJson, sendText } from '@kubelet-ts/server';
import type { KubeletHttpServer } from '@kubelet-ts/server';
import {
  cpuAndMemorySummary,
  createSummaryProvider,
  createVolumeStatsSource,
  DEFAULT_HOUSEKEEPING_INTERVAL_MS,
  DEFAULT_VOLUME_STATS_AGG_PERIOD_MS,
} from '@kubelet-ts/stats';
import type { HostFs, MountedVolumeRef, SummaryProvider } from '@kubelet-ts/stats';

export interface KubeletStatsOptions {
  nodeName: string;
  rootDir: string;
  podLogsDir: string;
  /** `enforceNodeAllocatable`: with `pods`, kubepods has a memory limit (the `pods` system container's availableBytes). */
  enforceNodeAllocatable: readonly string[];
  /**
   * `volumeStatsAggPeriod` (a config duration, default `1m0s`): how often each pod's volumes are
   * measured with du; `0s` or negative disables volume stats, as upstream.
   */
  volumeStatsAggPeriod?: string;
  cri: {
    runtime: Pick<RuntimeService, 'listContainerStats' | 'listContainers' | 'listPodSandbox' | 'podSandboxStatus'>;
    image: Pick<ImageService, 'imageFsInfo'>;
  };
  containerManager: Pick<ContainerManager, 'cgroupManager' | 'podContainerManager' | 'podsRoot' | 'getNodeAllocatable'>;
  volumes: { getMountedVolumes(uid?: string): readonly MountedVolumeRef[] };
  getPods: () => readonly Pod[];
  /** `statsHousekeepingInterval` (kubelet-ts, a config duration): how long summaries are cached; default 10 s. */
  statsHousekeepingInterval?: string | undefined;
  /** Host reads; default the real node:fs. */
  host?: HostFs;
  /** Reads a cgroup's pids.current; default from the file system. */
  readPidsCurrent?: (cgroupDir: string) => Promise<string>;
  clock: Clock;
  logger: Logger;
}

/**
 * The kubelet's summary provider (upstream: kl.StatsProvider behind the SummaryProvider): node
 * figures from the root cgroup, /proc and statfs of the root dir; pods from CRI, their pod cgroups
 * (cgroup-manager), their log files under podLogsDir and their volumes (volume-manager's mounted volumes,
 * measured with du at most every volumeStatsAggPeriod, upstream's fsResourceAnalyzer).
 */
export function createKubeletStats(options: KubeletStatsOptions): SummaryProvider {
  const { containerManager: cm } = options;
  const volumeStatsAggPeriodMs =
    options.volumeStatsAggPeriod !== undefined ? durationMs(options.volumeStatsAggPeriod) : DEFAULT_VOLUME_STATS_AGG_PERIOD_MS;
  const readPids = options.readPidsCurrent ?? ((dir: string) => readFile(join(dir, 'pids.current'), 'utf8'));
  return createSummaryProvider({
    nodeName: options.nodeName,
    rootDir: options.rootDir,
    podLogsDir: options.podLogsDir,
    runtimeService: options.cri.runtime,
    imageService: options.cri.image,
    getPods: options.getPods,
    podCgroupStats: (pod) => cm.podContainerManager.podStats(pod),
    async podProcessCount(pod) {
      const dir = await cm.cgroupManager.path(cm.podContainerManager.getPodContainerName(pod).name, 'pids');
      if (dir === undefined) return undefined;
      const value = Number((await readPids(dir)).trim());
      return Number.isFinite(value) ? value : undefined;
    },
    ...(volumeStatsAggPeriodMs > 0
      ? {
          volumeStats: createVolumeStatsSource({
            listVolumes: (uid) => options.volumes.getMountedVolumes(uid),
            aggPeriodMs: volumeStatsAggPeriodMs,
            ...(options.host !== undefined ? { host: options.host } : {}),
            clock: options.clock,
            logger: options.logger,
          }),
        }
      : {}),
    async podsCgroupStats() {
      const usage = await cm.cgroupManager.stats(cm.podsRoot);
      const enforced = options.enforceNodeAllocatable.includes('pods') ? cm.getNodeAllocatable()?.enforced.memoryBytes : undefined;
      return enforced !== undefined && enforced > 0 ? { ...usage, memoryLimitBytes: enforced } : usage;
    },
    ...(options.host !== undefined ? { host: options.host } : {}),
    housekeepingIntervalMs:
      options.statsHousekeepingInterval !== undefined ? durationMs(options.statsHousekeepingInterval) : DEFAULT_HOUSEKEEPING_INTERVAL_MS,
    clock: options.clock,
    logger: options.logger,
  });
}

/**
 * `GET /stats/summary` on a server (upstream pkg/kubelet/server/stats handler): the summary as JSON,
 * cached figures no older than the housekeeping interval (external callers never force an update,
 * as upstream); `?only_cpu_and_memory=true` gives only the CPU and memory figures (metrics-server's
 * request). A failure answers 500 `Internal Error: <reason>`.
 */
export function serveStatsSummary(server: Pick<KubeletHttpServer, 'router'> | undefined, provider: SummaryProvider, logger: Logger): void {
  server?.router.add(['GET', 'HEAD', 'POST'], '/stats/summary', async (_req, res, { url }) => {
    const only = url.searchParams.getAll('only_cpu_and_memory');
    const onlyCpuAndMemory = only.length === 1 && only[0] === 'true';
    try {
      const summary = await provider.get();
      sendJson(res, 200, onlyCpuAndMemory ? cpuAndMemorySummary(summary) : summary);
    } catch (err) {
      logger.error('HTTP InternalServerError serving', { request: '/stats/summary', err: errorMessage(err) });
      sendText(res, 500, `Internal Error: ${errorMessage(err)}`);
    }
  });
}
