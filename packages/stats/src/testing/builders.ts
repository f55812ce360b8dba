import type { FsStats, NodeStats, PodStats, Summary } from '../types.js';

const EPOCH = '2026-01-01T00:00:00.000Z';

export interface NewSummaryOptions {
  nodeName?: string;
  /** The `time` of every figure (RFC 3339); default 2026-01-01T00:00:00Z. */
  time?: string;
  /** Node memory: `availableBytes`/`workingSetBytes` derive from capacity − working set when not given. */
  memory?: { capacityBytes?: number; workingSetBytes?: number; availableBytes?: number; usageBytes?: number };
  /** nodefs (`node.fs`); unset fields default to a 100 GiB fs half used, 1 Mi inodes half used. */
  fs?: Partial<Omit<FsStats, 'time'>>;
  /** imagefs (`node.runtime.imageFs`); same defaults as `fs`. */
  imageFs?: Partial<Omit<FsStats, 'time'>>;
  /** containerfs (`node.runtime.containerFs`), only when given. */
  containerFs?: Partial<Omit<FsStats, 'time'>>;
  rlimit?: { maxpid?: number; curproc?: number };
  /** Fields merged over the built node (last word). */
  node?: Partial<NodeStats>;
  pods?: PodStats[];
}

function fsStats(time: string, over: Partial<Omit<FsStats, 'time'>> = {}): FsStats {
  const capacityBytes = over.capacityBytes ?? 100 * 1024 ** 3;
  const usedBytes = over.usedBytes ?? capacityBytes / 2;
  const inodes = over.inodes ?? 1024 * 1024;
  const inodesUsed = over.inodesUsed ?? inodes / 2;
  return {
    time,
    capacityBytes,
    usedBytes,
    availableBytes: over.availableBytes ?? capacityBytes - usedBytes,
    inodes,
    inodesUsed,
    inodesFree: over.inodesFree ?? inodes - inodesUsed,
  };
}

/**
 * A complete, consistent summary for tests: a node with 8 GiB of memory (2 GiB working set),
 * 100 GiB nodefs and imagefs half used, maxpid 4194304 with 200 processes, and the given pods.
 */
export function newSummary(options: NewSummaryOptions = {}): Summary {
  const time = options.time ?? EPOCH;
  const capacity = options.memory?.capacityBytes ?? 8 * 1024 ** 3;
  const workingSet = options.memory?.workingSetBytes ?? 2 * 1024 ** 3;
  const node: NodeStats = {
    nodeName: options.nodeName ?? 'node',
    startTime: EPOCH,
    cpu: { time, usageNanoCores: 100_000_000, usageCoreNanoSeconds: 1_000_000_000_000 },
    memory: {
      time,
      availableBytes: options.memory?.availableBytes ?? Math.max(0, capacity - workingSet),
      usageBytes: options.memory?.usageBytes ?? workingSet,
      workingSetBytes: workingSet,
    },
    fs: fsStats(time, options.fs),
    runtime: {
      imageFs: fsStats(time, options.imageFs),
      ...(options.containerFs !== undefined ? { containerFs: fsStats(time, options.containerFs) } : {}),
    },
    rlimit: { time, maxpid: options.rlimit?.maxpid ?? 4_194_304, curproc: options.rlimit?.curproc ?? 200 },
    ...options.node,
  };
  return { node, pods: options.pods ?? [] };
}

export interface NewPodStatsOptions {
  name?: string;
  namespace?: string;
  uid?: string;
  time?: string;
  /** Pod memory working set (bytes); default 10 MiB. */
  memoryWorkingSetBytes?: number;
  /** Pod CPU in nano cores; default 10m. */
  usageNanoCores?: number;
  /** `ephemeral-storage` used bytes; default 1 MiB. */
  ephemeralStorageUsedBytes?: number;
  /** `ephemeral-storage` used inodes; default 10. */
  ephemeralStorageInodesUsed?: number;
  processCount?: number;
  /** One container stats entry per name (default ['app']), each with the given log/rootfs use. */
  containers?: Array<{ name: string; rootfsUsedBytes?: number; logsUsedBytes?: number; memoryWorkingSetBytes?: number }>;
  /** Volume stats (name + used bytes). */
  volumes?: Array<{ name: string; usedBytes: number; inodesUsed?: number; pvcRef?: { name: string; namespace: string } }>;
}

/** A pod's stats for tests: references, CPU, memory, containers, volumes, ephemeral storage and process count. */
export function newPodStats(options: NewPodStatsOptions = {}): PodStats {
  const time = options.time ?? EPOCH;
  const name = options.name ?? 'test-pod';
  const memoryWorkingSetBytes = options.memoryWorkingSetBytes ?? 10 * 1024 * 1024;
  return {
    podRef: { name, namespace: options.namespace ?? 'default', uid: options.uid ?? `uid-${name}` },
    startTime: EPOCH,
    containers: (options.containers ?? [{ name: 'app' }]).map((c) => ({
      name: c.name,
      startTime: EPOCH,
      cpu: { time, usageNanoCores: 0, usageCoreNanoSeconds: 0 },
      memory: { time, workingSetBytes: c.memoryWorkingSetBytes ?? 0, usageBytes: c.memoryWorkingSetBytes ?? 0 },
      rootfs: { time, usedBytes: c.rootfsUsedBytes ?? 0, inodesUsed: 0 },
      logs: { time, usedBytes: c.logsUsedBytes ?? 0, inodesUsed: 0 },
    })),
    cpu: { time, usageNanoCores: options.usageNanoCores ?? 10_000_000, usageCoreNanoSeconds: 0 },
    memory: { time, workingSetBytes: memoryWorkingSetBytes, usageBytes: memoryWorkingSetBytes },
    ...(options.volumes !== undefined
      ? {
          volume: options.volumes.map((v) => ({
            time,
            name: v.name,
            usedBytes: v.usedBytes,
            inodesUsed: v.inodesUsed ?? 0,
            ...(v.pvcRef !== undefined ? { pvcRef: v.pvcRef } : {}),
          })),
        }
      : {}),
    'ephemeral-storage': {
      time,
      usedBytes: options.ephemeralStorageUsedBytes ?? 1024 * 1024,
      inodesUsed: options.ephemeralStorageInodesUsed ?? 10,
    },
    process_stats: { process_count: options.processCount ?? 1 },
  };
}
