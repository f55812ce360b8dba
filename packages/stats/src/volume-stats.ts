import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
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

export interface VolumeStatsSourceOptions {
  /** The volumes set up for a pod (kubelet: `volumes.getMountedVolumes(uid)`). */
  listVolumes: (podUID: string) => readonly MountedVolumeRef[] | Promise<readonly MountedVolumeRef[]>;
  host?: HostFs;
  clock?: Clock;
  logger?: Logger;
}

/**
 * Volume stats as upstream's MetricsDu: used bytes and inodes under the volume's directory (du -x),
 * capacity, available and inode totals of the filesystem holding it (statfs). A volume that cannot
 * be measured is left out (and logged).
 */
export function createVolumeStatsSource(options: VolumeStatsSourceOptions): (pod: Pod) => Promise<VolumeStats[]> {
  const fs = options.host ?? createHostFs();
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const measured = new Set(MEASURED_VOLUME_PLUGINS);
  return async (pod) => {
    const result: VolumeStats[] = [];
    for (const volume of await options.listVolumes(pod.metadata.uid as string)) {
      if (!measured.has(volume.pluginName)) continue;
      try {
        const time = new Date(clock.now()).toISOString();
        const [usage, info] = await Promise.all([diskUsage(fs, volume.path), fs.statfs(volume.path)]);
        const fsStats = fsStatsFromStatfs(info, time);
        result.push({ ...fsStats, name: volume.volumeName, usedBytes: usage.usedBytes, inodesUsed: usage.inodesUsed });
      } catch (err) {
        logger.debug('Failed to measure a volume', { podUID: pod.metadata.uid, volume: volume.volumeName, err: errorMessage(err) });
      }
    }
    return result;
  };
}
