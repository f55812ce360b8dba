import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { CgroupMode, NodeStatsPaths } from '../node-stats.js';
import type { CgroupUsage, FsStats, VolumeStats } from '../types.js';
import type { CpuRateTracker } from './cpu-rate.js';

/** What every piece of the summary provider works with (upstream: the CRI stats provider's fields), built once from the options. */
export interface SummaryContext {
  readonly nodeName: string;
  readonly rootDir: string;
  readonly podLogsDir: string;
  readonly runtimeService: Pick<RuntimeService, 'listContainerStats' | 'listContainers' | 'listPodSandbox' | 'podSandboxStatus'>;
  readonly imageService: Pick<ImageService, 'imageFsInfo'>;
  readonly getPods: () => readonly Pod[] | Promise<readonly Pod[]>;
  readonly podCgroupStats: ((pod: Pod) => Promise<CgroupUsage>) | undefined;
  readonly podProcessCount: ((pod: Pod) => Promise<number | undefined>) | undefined;
  readonly volumeStats: ((pod: Pod) => Promise<VolumeStats[]>) | undefined;
  readonly podsCgroupStats: (() => Promise<CgroupUsage & { memoryLimitBytes?: number }>) | undefined;
  readonly paths: NodeStatsPaths;
  /** The cgroup mode, given or detected once. */
  readonly cgroupMode: () => Promise<CgroupMode>;
  readonly clock: Clock;
  readonly logger: Logger;
  /** CPU rates from successive samples, by `node`, `sys/pods`, `pod/<uid>` and `container/<id>`. */
  readonly rates: CpuRateTracker;
  /** Sandbox ID → the pid of its infra process (stable for the sandbox's life). */
  readonly sandboxPids: Map<string, number>;
}

/** statfs of the filesystem at a mountpoint (undefined when it cannot be read). */
export type FsInfoFn = (path: string) => Promise<FsStats | undefined>;

/** One collection: its time, and reads shared by everything it measures. */
export interface Collection {
  readonly nowMs: number;
  /** `nowMs` as RFC 3339. */
  readonly time: string;
  /** Each filesystem statfs'ed once per collection. */
  readonly fsInfo: FsInfoFn;
}

/** A collection once the node is measured: the pods' figures refer to nodefs. */
export interface PodCollection extends Collection {
  readonly rootFs: FsStats | undefined;
}
