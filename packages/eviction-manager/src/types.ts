import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { SummaryProvider } from '@kubelet-ts/stats';
import type { PodAdmitResult } from './admission.js';
import type { PressureConditionType } from './constants.js';
import type { NodeCondition } from './node-conditions.js';
import type { EvictionConfig, EvictionThreshold } from './thresholds.js';

/** The pod condition an evicted pod gets (upstream DisruptionTarget / TerminationByKubelet). */
export interface EvictionPodCondition {
  type: 'DisruptionTarget';
  status: 'True';
  reason: string;
  message: string;
}

/** What the kubelet does to evict a pod: kill it with this grace period and keep this terminal status. */
export interface KillPodRequest {
  gracePeriodSeconds: number;
  /** Always `Evicted`. */
  reason: string;
  message: string;
  condition?: EvictionPodCondition;
}

/**
 * Upstream KillPodFunc (killPodNow): kills the pod and resolves once its containers are stopped;
 * the pod then stays Failed with the given reason and message.
 */
export type KillPodFn = (pod: Pod, request: KillPodRequest) => Promise<void>;

/** A node-level reclaim (delete unused images, dead containers); its result is ignored, the next summary tells. */
export type NodeReclaimFn = (signal?: AbortSignal) => Promise<unknown>;

export interface EvictionManagerOptions {
  summaryProvider: Pick<SummaryProvider, 'get'>;
  /** Pods that are running or may still run (upstream GetActivePods). */
  getActivePods: () => Pod[];
  killPod: KillPodFn;
  /** True once an evicted pod's containers, volumes and cgroup are gone (upstream podResourcesAreReclaimed). Default: always true. */
  podCleanedUp?: (pod: Pod) => boolean;
  /** Deletes unused images (image GC). */
  reclaimImages?: NodeReclaimFn;
  /** Deletes every dead container and sandbox (container GC). */
  deleteDeadContainers?: NodeReclaimFn;
  config?: EvictionConfig;
  /** kubelet-ts extension: static pods that are not critical by priority may be evicted (and refused). */
  evictStaticPods?: boolean;
  /** Whether imagefs is a separate filesystem. Default: decided per summary (capacities differ). */
  dedicatedImageFs?: boolean;
  /** Enforce emptyDir sizeLimit and ephemeral-storage limits (upstream LocalStorageCapacityIsolation, default on). */
  localStorageCapacityIsolation?: boolean;
  /** How often `run` synchronizes. Default 10 s (upstream monitoringInterval). */
  monitoringIntervalMs?: number;
  /** How long `run` waits for evicted pods to be cleaned up. Default 30 s. */
  podCleanupTimeoutMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Where `kubelet_evictions{eviction_signal}` is counted (upstream's name and label). Default: nowhere. */
  metrics?: Metrics;
}

export type ConditionChangeListener = (conditions: readonly PressureConditionType[]) => void;

/** Upstream eviction.Manager plus the node conditions it feeds (upstream nodestatus setters). */
export interface EvictionManager {
  /** Synchronizes every monitoring interval until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** One pass (upstream synchronize): observe, update conditions, reclaim or evict. Resolves with the pods evicted. */
  synchronize(signal?: AbortSignal): Promise<Pod[]>;
  /** Admission (upstream PodAdmitHandler): refuses pods the node cannot take under pressure. */
  admit(pod: Pod): PodAdmitResult;
  /** The pressure conditions now in effect. */
  pressureConditions(): PressureConditionType[];
  isUnderMemoryPressure(): boolean;
  isUnderDiskPressure(): boolean;
  isUnderPIDPressure(): boolean;
  /** MemoryPressure, DiskPressure and PIDPressure as v1 NodeConditions. */
  nodeConditions(): NodeCondition[];
  onConditionChange(listener: ConditionChangeListener): () => void;
  /** The configured thresholds. */
  readonly thresholds: readonly EvictionThreshold[];
}
