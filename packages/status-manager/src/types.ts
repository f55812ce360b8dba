import type { Pod, PodStatus } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';

/** Upstream versionedPodStatus: one pod's status as the manager holds it. */
export interface VersionedPodStatus {
  uid: string;
  name: string;
  namespace: string;
  /** Goes up by one with every change, so that a sink can tell which version it has sent. */
  version: number;
  status: PodStatus;
  /** terminatePod was called: this is the pod's final status (in API mode it may be deleted once reclaimed). */
  podIsFinished: boolean;
  /** When this version was set (ms, the manager's clock). */
  at: number;
}

/**
 * Where pod statuses go besides the manager's own map (upstream: the API server, through
 * syncBatch/syncPod). Standalone there is nowhere: `noopStatusSink`. An API-mode sink PATCHes
 * pods/<name>/status; it is called synchronously and must queue its own work.
 */
export interface StatusSink {
  /** A pod's status has a new version. */
  statusChanged(status: VersionedPodStatus): void;
  /** The manager forgot a pod's status (the pod is gone from the node). */
  statusRemoved(uid: string): void;
}

/** Called with a pod and its new status. */
export type PodStatusListener = (pod: Pod, status: PodStatus) => void;

export interface StatusListenerOptions {
  /**
   * Also hear `setPodStatus(…, { fromSync: true })` calls that changed nothing: upstream hands
   * every status a pod sync generates to the probe manager, which re-runs the readiness probe of
   * a running container that is not ready yet.
   */
  everySync?: boolean;
}

export interface SetPodStatusOptions {
  /** The status a pod sync generated (heard by `everySync` listeners even when unchanged). */
  fromSync?: boolean;
}

/**
 * Upstream status.Manager: the one source of truth for the status of the pods on this node.
 * The pod lifecycle sets what it generates; probes set readiness and startup; whoever serves or
 * sends statuses reads them here.
 */
export interface StatusManager {
  /** The latest status of a pod, undefined before its first sync or once forgotten. */
  getPodStatus(uid: string): PodStatus | undefined;
  /** The latest status with its version. */
  getVersionedPodStatus(uid: string): VersionedPodStatus | undefined;
  /** Stores a pod's status; listeners and the sink hear it when it differs from the one stored. */
  setPodStatus(pod: Pod, status: PodStatus, options?: SetPodStatusOptions): void;
  /**
   * Upstream SetContainerReadiness: the container's `ready`, and the pod's `Ready` and
   * `ContainersReady` conditions, without waiting for the next sync. Ignored for a pod without a
   * status or a container ID the status does not show. `containerID` may carry the runtime's
   * scheme (`containerd://…`) or not.
   */
  setContainerReadiness(uid: string, containerID: string, ready: boolean): void;
  /** Upstream SetContainerStartup: the container's `started`; nothing else changes until the next sync. */
  setContainerStartup(uid: string, containerID: string, started: boolean): void;
  /**
   * Upstream TerminatePod, for a pod whose containers are all stopped: every container that
   * does not show terminated is reported terminated (exit 137, `ContainerStatusUnknown`) once
   * the pod had initialized, init containers that never ran are reported failed, a pod that is
   * not static gets a terminal phase (Failed unless it already has one), and the version is
   * marked finished.
   */
  terminatePod(pod: Pod): void;
  /** Forgets a pod's status at once (a UID that is started anew); the sink hears it, listeners do not. */
  deletePodStatus(uid: string): void;
  /**
   * Upstream RemoveOrphanedStatuses: forgets the status of every pod for which `keep` is false
   * and returns their UIDs.
   */
  removeOrphanedStatuses(keep: (uid: string) => boolean): string[];
  /** Calls the listener whenever a pod's status changes; returns the unsubscribe function. */
  onStatusChange(listener: PodStatusListener, options?: StatusListenerOptions): () => void;
}

export interface StatusManagerOptions {
  /** Default: `noopStatusSink` (standalone: statuses are only served locally). */
  sink?: StatusSink;
  clock?: Clock;
  logger?: Logger;
}
