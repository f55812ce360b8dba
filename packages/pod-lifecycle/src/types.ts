import type { Container, Pod } from '@kubelet-ts/api';
import type { ContainerMount } from '@kubelet-ts/container-runtime';

/** Operations of the merged pod config stream (upstream kubetypes.PodOperation). */
export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

/**
 * One update from the pod sources (structurally the `PodUpdate` of @kubelet-ts/pod-sources, so
 * that this package does not depend on it).
 */
export interface PodUpdate {
  op: PodOperation;
  source: string;
  pods: Pod[];
}

/**
 * What the lifecycle core needs from the volume manager (upstream VolumeManager): mount a pod's
 * volumes before its containers start, tell the runtime helper where each container's mounts
 * come from, and release them when the pod is gone. The kubelet uses @kubelet-ts/volume-manager,
 * which implements it structurally.
 */
export interface VolumeProvider {
  /** Resolves once every volume of the pod is ready; rejects with the reason otherwise. */
  waitForAttachAndMount(pod: Pod, signal?: AbortSignal): Promise<void>;
  /** The host paths to mount into one container (volumeMounts resolved, subPath applied). */
  getMountsForContainer(pod: Pod, container: Container): Promise<ContainerMount[]>;
  /** Unmounts and removes what the pod's volumes hold on the node. */
  teardownPod(uid: string): Promise<void>;
}

/**
 * Pod-level cgroups (upstream PodContainerManager as the kubelet drives it; structurally the
 * `podCgroups` of @kubelet-ts/cgroup-manager's ContainerManager): the pod cgroup is made before
 * the runtime syncs the pod (its path is the sandbox's cgroup_parent) and removed once the pod is
 * terminated and its containers are gone.
 */
export interface PodCgroupsHook {
  /** Creates the pod's cgroup with its resources (or updates them); rejects with the reason the pod cannot run. */
  ensureExists(pod: Pod): Promise<void>;
  /** Kills what is left in the pod's cgroup and removes it. */
  destroy(uid: string): Promise<void>;
  /** The active pods (housekeeping): lets the QoS tiers follow pods that came and went. */
  update?(pods: Pod[]): Promise<void>;
  /** UIDs of the pod cgroups that exist, so that housekeeping removes those of pods that are gone. */
  listPodUIDs?(): Promise<string[]>;
}

/**
 * Upstream pod manager's secret and configMap managers: told of every pod the sources add, update
 * and remove, so that the objects a pod names are watched before it syncs (API mode).
 */
export interface PodObjectRegistry {
  registerPod(pod: Pod): void;
  unregisterPod(pod: Pod): void;
}

/** Upstream lifecycle.PodAdmitResult: whether a new pod may start here, and why not. */
export interface PodAdmitResult {
  admit: boolean;
  /** A CamelCase reason (`Evicted`, `OutOfmemory`…) when refused. */
  reason?: string;
  message?: string;
  /**
   * An admitted pod starts once this settles: the pods preempted for a critical pod are stopped
   * first (upstream blocks the sync loop on them; here only this pod waits). Should never reject.
   */
  startAfter?: Promise<void>;
}

/**
 * Upstream lifecycle.PodAdmitHandler: consulted, in order, before a pod the lifecycle has not
 * started yet is started. The first refusal wins; the pod then ends Failed with that reason and
 * the message `Pod was rejected: <message>`, and is never started while a source lists it.
 */
export interface PodAdmitHandler {
  admit(attrs: { pod: Pod; otherPods: readonly Pod[] }): PodAdmitResult;
}

/** A condition the kubelet sets on a pod it stops (upstream DisruptionTarget / TerminationByKubelet). */
export interface KillPodCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/**
 * Upstream killPodNow with a status function (what the eviction manager uses): kill the pod with
 * this grace period, then keep its status phase Failed with this reason and message.
 */
export interface EvictPodRequest {
  gracePeriodSeconds: number;
  reason: string;
  message: string;
  condition?: KillPodCondition;
}

/**
 * A probe result that changed (structurally the `ProbeResultChange` of @kubelet-ts/probe-runner,
 * upstream results.Update): which probe, of which container of which pod.
 */
export interface ProbeResultUpdate {
  probeType: 'liveness' | 'readiness' | 'startup';
  podUID: string;
  /** The runtime's container ID, without the `containerd://` scheme. */
  containerId: string;
}
