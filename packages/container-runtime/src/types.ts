/**
 * The contract between the kubelet's core (pod lifecycle, status, node status, later a device
 * manager) and a container runtime. Mirrors upstream kubecontainer.Runtime / kubecontainer.PodStatus
 * (pkg/kubelet/container): the core never talks CRI itself; it asks the runtime what runs and tells
 * it to converge one pod at a time. @kubelet-ts/runtime-manager implements it over CRI.
 *
 * Times are milliseconds since the Unix epoch (CRI's nanosecond strings are converted once,
 * at the boundary).
 */
import type { Container, Pod } from '@kubelet-ts/api';
import type { Backoff } from '@kubelet-ts/common';

/** kubecontainer.State. */
export type RuntimeContainerState = 'created' | 'running' | 'exited' | 'unknown';

/** kubecontainer.Status: one container as the runtime reports it, decoded from CRI labels/annotations. */
export interface RuntimeContainerStatus {
  /** CRI container ID. */
  id: string;
  /** The container's name in the pod spec (label io.kubernetes.container.name). */
  name: string;
  state: RuntimeContainerState;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  exitCode?: number;
  /** The image as requested in the spec. */
  image: string;
  /** The image reference the runtime resolved (digest or ID), reported as imageID. */
  imageRef: string;
  /** The container spec hash recorded at creation (annotation io.kubernetes.container.hash). */
  hash: string;
  /** Restart count recorded at creation (annotation io.kubernetes.container.restartCount). */
  restartCount: number;
  /** Runtime reason, e.g. OOMKilled, Error, Completed. */
  reason?: string;
  /** Runtime message, or the termination message read from the container's terminationMessagePath. */
  message?: string;
}

/** A pod sandbox as the runtime reports it. */
export interface RuntimeSandboxStatus {
  id: string;
  state: 'ready' | 'notready';
  createdAt: number;
  /** Sandbox metadata attempt: incremented each time the sandbox is recreated. */
  attempt: number;
  /** Primary pod IP; empty for host-network pods and sandboxes without network. */
  ip?: string;
  additionalIps: string[];
  hostNetwork: boolean;
}

/** kubecontainer.PodStatus: everything the runtime knows of one pod, newest sandbox and containers first. */
export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  ips: string[];
  /** Newest first. */
  sandboxes: RuntimeSandboxStatus[];
  /** Every container of the pod that still exists in the runtime, newest first. */
  containers: RuntimeContainerStatus[];
  /** When this status was read. */
  timestamp: number;
}

/** A short listing entry (kubecontainer.Container) used by the PLEG, GC and orphan cleanup. */
export interface RunningContainer {
  id: string;
  name: string;
  state: RuntimeContainerState;
  image: string;
  imageRef: string;
  hash: string;
  createdAt: number;
  sandboxId: string;
}

export interface RunningSandbox {
  id: string;
  state: 'ready' | 'notready';
  createdAt: number;
}

/** kubecontainer.Pod: a pod as grouped from the runtime's list calls by its UID label. */
export interface RunningPod {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: RunningSandbox[];
  containers: RunningContainer[];
}

/** The step of SyncPod that failed (upstream kubecontainer.SyncAction). */
export type SyncAction = 'CreatePodSandbox' | 'KillPodSandbox' | 'StartContainer' | 'KillContainer' | 'InitContainer' | 'ConfigPodSandbox';

/**
 * One outcome of SyncPod for one target. `reason` is the upstream waiting reason that the
 * pod status must show for the container (ErrImagePull, ImagePullBackOff, CrashLoopBackOff,
 * CreateContainerConfigError, CreateContainerError, RunContainerError, PostStartHookError…).
 */
export interface SyncResult {
  action: SyncAction;
  /** Container name, or the pod's full name for sandbox actions. */
  target: string;
  /** Undefined on success. */
  reason?: string;
  message?: string;
  /** For a back-off (CrashLoopBackOff): how long until the container may be started again. */
  retryAfterMs?: number;
}

export interface PodSyncResult {
  results: SyncResult[];
  /** The first error, if any: the sync is retried with backoff by the caller. */
  error?: Error;
  /**
   * When every failure is a back-off that ends at a known time: the shortest wait until one
   * ends. The caller may retry then instead of after its generic error back-off, so restarts
   * follow the 10 s, 20 s, 40 s… schedule closely.
   */
  retryAfterMs?: number;
}

/** Node-level runtime conditions (CRI Status): RuntimeReady and NetworkReady. */
export interface RuntimeCondition {
  type: string;
  status: boolean;
  reason: string;
  message: string;
}

/** Container GC policy (upstream kubecontainer.GCPolicy; the kubelet's defaults: 0s, 1, -1). */
export interface ContainerGCPolicy {
  /** Minimum age of a dead container before it may be collected. */
  minAgeMs: number;
  /** Dead containers kept per (pod, container name); upstream MaxPerPodContainer = 1. */
  maxPerPodContainer: number;
  /** Dead containers kept on the node; < 0 = no limit. */
  maxContainers: number;
}

/**
 * Upstream kubecontainer.Runtime, the slice the lifecycle core uses.
 */
export interface ContainerRuntime {
  /** Pods grouped from CRI list calls; `all` includes exited containers and not-ready sandboxes. */
  getPods(all: boolean): Promise<RunningPod[]>;
  /** Full status of one pod from PodSandboxStatus + ContainerStatus calls. */
  getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus>;
  /**
   * Converge one pod: computePodActions, then kill / create sandbox / start init containers /
   * start containers. `crashLoopBackoff` is keyed per container (see `backoffKey`).
   */
  syncPod(pod: Pod, status: RuntimePodStatus, crashLoopBackoff: Backoff, signal?: AbortSignal): Promise<PodSyncResult>;
  /**
   * Stop every container (preStop hooks, grace period from the pod, the override, or the
   * container's annotation when the pod spec is gone) and then the sandboxes. Does not remove them.
   */
  killPod(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<PodSyncResult>;
  /** Remove dead containers and sandboxes per policy; `isPodDeleted(uid)` says whether a pod is gone for good. */
  garbageCollect(policy: ContainerGCPolicy, allSourcesReady: boolean, isPodDeleted: (uid: string) => boolean): Promise<void>;
  /**
   * Removes the exited containers and the stopped sandboxes of one pod that is gone for good (no
   * source has it, its worker terminated it), as its last status lists them (the one its termination
   * read): what the next garbage collection would remove, now, without listing the runtime again.
   * Running containers and ready sandboxes stay; while any container stays, the sandboxes do too.
   */
  removeDeletedPod(status: RuntimePodStatus): Promise<void>;
  /** Runtime conditions for /healthz and node status. */
  status(): Promise<RuntimeCondition[]>;
}

/** Probe verdicts the runtime consults in computePodActions (upstream prober/results; the probe manager implements it). */
export interface ProbeResults {
  /** True when the container's liveness probe has failed (it must be restarted). */
  livenessFailed(containerId: string): boolean;
  /** True when the container's startup probe has failed (it must be restarted). */
  startupFailed(containerId: string): boolean;
  /**
   * Optional (runtime-manager extension): false while a container with a startup probe has not
   * passed it yet. Consulted for sidecars only: the next init container waits until the sidecar
   * has started. When absent, a running sidecar counts as started.
   */
  startupSucceeded?(containerId: string): boolean;
}

/** A mount handed to CRI for a container. */
export interface ContainerMount {
  containerPath: string;
  hostPath: string;
  readOnly: boolean;
  propagation?: 'private' | 'host-to-container' | 'bidirectional';
  selinuxRelabel?: boolean;
}

/** A host device for a container (upstream DeviceInfo). */
export interface DeviceInfo {
  pathOnHost: string;
  pathInContainer: string;
  /** cgroup permissions: any of "r", "w", "m". */
  permissions: string;
}

/** A CDI device by its fully qualified name, e.g. `vendor.com/gpu=0` (upstream CDIDevice). */
export interface CDIDevice {
  name: string;
}

/** What the kubelet computes for each container before CreateContainer (upstream RunContainerOptions). */
export interface RunContainerOptions {
  env: Array<{ name: string; value: string }>;
  mounts: ContainerMount[];
  hostname: string;
  /**
   * Room for the device manager (not filled yet, and not yet handed to CRI by the runtime manager):
   * host devices, CDI devices and annotations for the container, as upstream's device plugins give them.
   */
  devices?: DeviceInfo[];
  cdiDevices?: CDIDevice[];
  annotations?: Array<{ name: string; value: string }>;
}

/**
 * Upstream RuntimeHelper: what the runtime manager needs from the rest of the kubelet.
 * apps/kubelet wires the real one (cgroups from cgroup-manager, mounts from volume-manager).
 */
export interface RuntimeHelper {
  /** Env (with fieldRef/resourceFieldRef values), mounts and hostname for a container. */
  generateRunContainerOptions(pod: Pod, container: Container, podIPs: string[]): Promise<RunContainerOptions>;
  /** The cgroup parent for the pod's sandbox (cgroupfs form), or undefined for the runtime's default. */
  getPodCgroupParent(pod: Pod): string | undefined;
  /** DNS for the sandbox: servers, searches, options (from resolvConf for dnsPolicy Default/ClusterFirst without cluster DNS). */
  getPodDNS(pod: Pod): Promise<{ servers: string[]; searches: string[]; options: string[] }>;
  /** `<root-dir>/pods/<uid>`. */
  getPodDir(uid: string): string;
}
