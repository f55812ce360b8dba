import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { StatsError } from './errors.js';
import type { HostFs } from './host.js';
import { createHostFs, diskUsage } from './host.js';
import { fsStatsFromStatfs } from './node-stats.js';
import type { VolumeStats } from './types.js';

/** A volume set up for a pod: structurally volume-manager's MountedVolume. */
export interface MountedVolumeRef {
  volumeName: string;
  /** Upstream plugin name (`kubernetes.io/empty-dir`). */
  pluginName: string;
  /** The directory the volume is set up at on the host. */
  path: string;
}

/**
 * The plugins whose volumes upstream measures with du (MetricsDu): emptyDir and the volumes built on
 * it. hostPath has no metrics upstream (it is not the pod's storage); CSI volumes report through
 * NodeGetVolumeStats, which is not done here.
 */
export const MEASURED_VOLUME_PLUGINS: readonly string[] = [
  'kubernetes.io/empty-dir',
  'kubernetes.io/configmap',
  'kubernetes.io/secret',
  'kubernetes.io/downward-api',
  'kubernetes.io/projected',
  'kubernetes.io/git-repo',
];

/** Upstream's default `volumeStatsAggPeriod`: how often a pod's volumes are measured with du. */
export const DEFAULT_VOLUME_STATS_AGG_PERIOD_MS = 60_000;

export interface VolumeStatsSourceOptions {
  /** The volumes set up for a pod (kubelet: `volumes.getMountedVolumes(uid)`). Asked on every call (it is cheap). */
  listVolumes: (podUID: string) => readonly MountedVolumeRef[] | Promise<readonly MountedVolumeRef[]>;
  /**
   * `volumeStatsAggPeriod`: a pod's volumes are measured again at most this often (jittered up to twice
   * it); in between, the cached figures are returned. Default 1 minute. Must be > 0 (the kubelet leaves
   * volume stats out when the configured period is 0 or negative, as upstream).
   */
  aggPeriodMs?: number;
  /** A number in [0, 1) for the jitter; default Math.random. */
  random?: () => number;
  host?: HostFs;
  clock?: Clock;
  logger?: Logger;
}

interface PodVolumeCache {
  /** Volume name → its figures at the last measurement. */
  stats: Map<string, VolumeStats>;
  /** The volume path each figure was measured at (a volume set up again elsewhere is measured anew). */
  paths: Map<string, string>;
  nextAt: number;
  lastAskedAt: number;
  refreshing: boolean;
}

/**
 * Volume stats as upstream's MetricsDu: used bytes and inodes under the volume's directory (du -x),
 * capacity, available and inode totals of the filesystem holding it (statfs). A volume that cannot
 * be measured is left out (and logged).
 *
 * As upstream's fsResourceAnalyzer (volume_stat_calculator), du runs at most every `aggPeriodMs`
 * per pod, jittered (period × [1, 2), upstream's JitterUntil factor 1.0): a call returns the cached
 * figures and, when they are due, starts a measurement in the background for the next call. A volume
 * seen for the first time (a new pod, or a volume mounted since) is measured before the call returns.
 */
export function createVolumeStatsSource(options: VolumeStatsSourceOptions): (pod: Pod) => Promise<VolumeStats[]> {
  const fs = options.host ?? createHostFs();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const random = options.random ?? Math.random;
  const periodMs = options.aggPeriodMs ?? DEFAULT_VOLUME_STATS_AGG_PERIOD_MS;
  if (!(periodMs > 0)) throw new StatsError('INVALID_CONFIG', `volume stats aggregation period must be > 0, got ${periodMs}`);
  const measured = new Set(MEASURED_VOLUME_PLUGINS);
  const cache = new Map<string, PodVolumeCache>();
  let sweptAt = clock.now();

  const measure = async (podUID: string, volume: MountedVolumeRef): Promise<VolumeStats | undefined> => {
    try {
      const time = new Date(clock.now()).toISOString();
      const [usage, info] = await Promise.all([diskUsage(fs, volume.path), fs.statfs(volume.path)]);
      const fsStats = fsStatsFromStatfs(info, time);
      return { ...fsStats, name: volume.volumeName, usedBytes: usage.usedBytes, inodesUsed: usage.inodesUsed };
    } catch (err) {
      logger.debug('Failed to measure a volume', { podUID, volume: volume.volumeName, err: errorMessage(err) });
      return undefined;
    }
  };
  const measureInto = async (podUID: string, entry: PodVolumeCache, volumes: readonly MountedVolumeRef[]): Promise<void> => {
    for (const volume of volumes) {
      const stats = await measure(podUID, volume);
      if (stats === undefined) entry.stats.delete(volume.volumeName);
      else entry.stats.set(volume.volumeName, stats);
      entry.paths.set(volume.volumeName, volume.path);
    }
  };
  const nextDue = (now: number): number => now + periodMs * (1 + random());
  // Pods no longer asked about (deleted) are forgotten: checked once a period.
  const sweep = (now: number): void => {
    if (now - sweptAt < periodMs) return;
    sweptAt = now;
    for (const [uid, entry] of cache) if (!entry.refreshing && now - entry.lastAskedAt > 2 * periodMs) cache.delete(uid);
  };

  return async (pod) => {
    const podUID = pod.metadata.uid as string;
    const volumes = (await options.listVolumes(podUID)).filter((v) => measured.has(v.pluginName));
    const now = clock.now();
    sweep(now);
    let entry = cache.get(podUID);
    if (entry === undefined) {
      entry = { stats: new Map(), paths: new Map(), nextAt: nextDue(now), lastAskedAt: now, refreshing: false };
      cache.set(podUID, entry);
    }
    entry.lastAskedAt = now;
    const unseen = volumes.filter((v) => entry.paths.get(v.volumeName) !== v.path);
    if (unseen.length > 0) await measureInto(podUID, entry, unseen);
    else if (now >= entry.nextAt && !entry.refreshing) {
      const current = entry;
      current.refreshing = true;
      void measureInto(podUID, current, volumes).finally(() => {
        current.nextAt = nextDue(clock.now());
        current.refreshing = false;
      });
    }
    const result: VolumeStats[] = [];
    for (const volume of volumes) {
      const stats = entry.stats.get(volume.volumeName);
      if (stats !== undefined) result.push(stats);
    }
    return result;
  };
}
