/**
 * The kubelet Summary API (`k8s.io/kubelet/pkg/apis/stats/v1alpha1`), as served at `/stats/summary`.
 * Field names and JSON keys are upstream's (note `ephemeral-storage` and `process_stats`), so that
 * metrics-server and other consumers read our output unchanged. Times are RFC 3339 strings; byte and
 * nanosecond counters are numbers (exact up to 2^53, which covers any real node).
 */

/** Upstream Summary: the node and every pod on it. */
export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}

export interface NodeStats {
  nodeName: string;
  /** Stats of the node's system containers (`kubelet`, `runtime`, `pods`, `misc`) where known. */
  systemContainers?: ContainerStats[];
  /** When the node (its kernel) started. */
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  /** The filesystem holding the kubelet's root directory (nodefs). */
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: RlimitStats;
}

/** Process limits of the node (`pid.available` = maxpid − curproc). */
export interface RlimitStats {
  time: string;
  /** kernel.pid_max (or threads-max when lower). */
  maxpid?: number;
  /** The number of processes (threads included, as upstream counts tasks) running on the node. */
  curproc?: number;
}

export interface RuntimeStats {
  /** The filesystem holding the runtime's images (CRI ImageFsInfo). */
  imageFs?: FsStats;
  /** The filesystem holding containers' writable layers, when separate from imageFs. */
  containerFs?: FsStats;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  network?: NetworkStats;
  /** One entry per volume the kubelet can measure (emptyDir, configMap, secret, downwardAPI, projected, CSI). */
  volume?: VolumeStats[];
  /** Containers' writable layers and logs plus the pod's local volumes (what eviction compares with ephemeral-storage). */
  'ephemeral-storage'?: FsStats;
  process_stats?: ProcessStats;
}

export interface ProcessStats {
  process_count?: number;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  /** The container's writable layer (CRI ContainerStats.writable_layer). */
  rootfs?: FsStats;
  /** The container's log files under the pod's log directory. */
  logs?: FsStats;
}

export interface CPUStats {
  time: string;
  /** Average CPU over the last sampling window, in billionths of a core. */
  usageNanoCores?: number;
  /** Cumulative CPU time since the container started, ns. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  /** Node: capacity − working set; container/pod: limit − working set, when a limit is set. */
  availableBytes?: number;
  usageBytes?: number;
  /** Usage minus inactive file pages: what eviction and `kubectl top` use. */
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface InterfaceStats {
  name: string;
  rxBytes?: number;
  rxErrors?: number;
  txBytes?: number;
  txErrors?: number;
}

export interface NetworkStats extends InterfaceStats {
  time: string;
  interfaces?: InterfaceStats[];
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface PVCReference {
  name: string;
  namespace: string;
}

export interface VolumeStats extends FsStats {
  /** The volume's name in the pod spec. */
  name: string;
  pvcRef?: PVCReference;
}

/** Options of {@link SummaryProvider.get}. */
export interface SummaryOptions {
  /** Fresh figures (eviction asks for them); otherwise a summary no older than the housekeeping interval may be returned. */
  updateStats?: boolean;
  signal?: AbortSignal;
  /**
   * kubelet-ts: measure only these pods (by UID); the node figures are complete. Such a summary is always
   * collected and never cached. Eviction's routine check needs no pod figures unless a pod has a local-storage
   * limit, and skipping the others saves reading ~10 files per pod every 10 s.
   */
  podUIDs?: ReadonlySet<string>;
}

/** Upstream stats.SummaryProvider: what `/stats/summary` and the eviction manager read. */
export interface SummaryProvider {
  /** Collects a summary (see {@link SummaryOptions}). */
  get(options?: SummaryOptions): Promise<Summary>;
}

/** Cumulative CPU and memory of a cgroup: structurally cgroup-manager's CgroupStats. */
export interface CgroupUsage {
  /** Cumulative CPU time, ns. */
  cpuUsageNanoseconds: number;
  memoryUsageBytes: number;
  /** Usage minus inactive file pages. */
  memoryWorkingSetBytes: number;
}
