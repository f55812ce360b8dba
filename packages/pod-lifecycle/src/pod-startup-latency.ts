// Upstream PodStartupLatencyTracker (pkg/kubelet/util/pod_startup_latency_tracker.go, as 1.34 has it with
// kubernetes#131950): kubelet_pod_start_sli_duration_seconds, kubelet_pod_start_total_duration_seconds and
// kubelet_first_network_pod_start_sli_duration_seconds.
import type { Pod } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { noopLogger, noopMetrics } from '@kubelet-ts/common';
import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';

/**
 * Upstream PodStartupLatencyTracker: the moments that make a pod's startup latency, recorded by the
 * pod sources (each pod seen from a watch), the runtime (image pulls, init containers) and the status
 * manager (the status that first shows every container started).
 */
export interface PodStartupLatencyTracker {
  /**
   * A pod as a source delivered it (upstream: every non-static pod of every update of the pod config).
   * A pod first seen before it started is tracked; once tracked and seen with every container running,
   * after the kubelet's own status said so, its startup is observed, once.
   */
  observedPodOnWatch(pod: Pod, whenMs: number): void;
  recordImageStartedPulling(podUID: string): void;
  /** A pull that succeeded. */
  recordImageFinishedPulling(podUID: string): void;
  /** A (non-restartable) init container started, at `startedAtMs`. */
  recordInitContainerStarted(podUID: string, startedAtMs: number): void;
  /** A (non-restartable) init container finished, at `finishedAtMs`. */
  recordInitContainerFinished(podUID: string, finishedAtMs: number): void;
  /** A status the kubelet set for the pod (`pod.status`): the first showing every container started marks it running. */
  recordStatusUpdated(pod: Pod): void;
  /** The pod is gone. */
  deletePodStartupState(podUID: string): void;
}

export interface PodStartupLatencyTrackerOptions {
  clock: Clock;
  metrics?: Metrics;
  logger?: Logger;
}

/** Upstream podStartupDurationBuckets, in seconds: every pod start histogram's. */
export const POD_START_DURATION_BUCKETS: readonly number[] = [
  0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600,
];

interface PerPodState {
  firstStartedPulling?: number;
  lastFinishedPulling?: number;
  firstInitContainerStart?: number;
  lastInitContainerFinish?: number;
  /** When the kubelet's status first showed every container started. */
  observedRunningTime?: number;
  metricRecorded: boolean;
}

/** Upstream hasPodStartedSLO: every container of the status has been started (running, with its start time). */
function hasPodStartedSLO(pod: Pod): boolean {
  return (pod.status?.containerStatuses ?? []).every((cs) => (cs.state?.running?.startedAt ?? '') !== '');
}

/** The volume sources that keep a pod stateless (upstream isStatefulPod); a CSI volume only when marked ephemeral. */
const STATELESS_SOURCES = ['secret', 'configMap', 'downwardAPI', 'emptyDir', 'projected', 'gitRepo', 'image', 'ephemeral'];

/**
 * Upstream isStatefulPod, after the SLO's definition: a pod that mounts a volume other than secrets,
 * config maps, downward API, emptyDir (and projected, gitRepo, image, ephemeral and ephemeral CSI ones).
 */
function isStatefulPod(pod: Pod): boolean {
  return (pod.spec.volumes ?? []).some((volume) => {
    const source = volume as Record<string, unknown>;
    if (STATELESS_SOURCES.some((key) => source[key] !== undefined && source[key] !== null)) return false;
    return volume.csi?.volumeAttributes?.['csi.storage.k8s.io/ephemeral'] !== 'true';
  });
}

/** Milliseconds since the epoch of an RFC 3339 time; undefined when absent or unreadable. */
function parseTime(value: string | undefined): number | undefined {
  const ms = Date.parse(value ?? '');
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The SLI duration: creation to `whenMs`, less the image pulls and init containers (upstream: the time
 * before the first of them, the gap between the pulls' end and the init containers' start, and the time
 * after the last of them); all of it when there was neither.
 */
function sliDurationMs(state: PerPodState, createdMs: number, whenMs: number): number {
  const { firstStartedPulling: pullStart, lastFinishedPulling: pullEnd, firstInitContainerStart: initStart } = state;
  const initEnd = state.lastInitContainerFinish;
  const starts = [pullStart, initStart].filter((t): t is number => t !== undefined);
  const excludedStart = starts.length > 0 ? Math.min(...starts) : undefined;
  let duration = 0;
  if (excludedStart !== undefined) duration += Math.max(0, excludedStart - createdMs);
  if (pullEnd !== undefined && initStart !== undefined && initStart > pullEnd) duration += initStart - pullEnd;
  // Upstream's order: the pulls' end when later than the init containers' (or there were none), else theirs.
  const excludedEnd = pullEnd !== undefined && (initEnd === undefined || pullEnd > initEnd) ? pullEnd : initEnd;
  if (excludedEnd !== undefined) duration += Math.max(0, whenMs - excludedEnd);
  else if (excludedStart === undefined) duration = whenMs - createdMs;
  return duration;
}

/**
 * Upstream's pod startup latency tracker. The SLI leaves out stateful pods (the total does not), and the
 * first pod with its own network sets kubelet_first_network_pod_start_sli_duration_seconds (upstream's
 * INTERNAL metric). Both histograms have upstream's podStartupDurationBuckets.
 */
export function createPodStartupLatencyTracker(options: PodStartupLatencyTrackerOptions): PodStartupLatencyTracker {
  const { clock } = options;
  const metrics = options.metrics ?? noopMetrics;
  const logger = options.logger ?? noopLogger;
  const sliDuration = metrics.histogram({
    name: 'kubelet_pod_start_sli_duration_seconds',
    help: 'Duration in seconds to start a pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch',
    buckets: POD_START_DURATION_BUCKETS,
  });
  const totalDuration = metrics.histogram({
    name: 'kubelet_pod_start_total_duration_seconds',
    help: 'Duration in seconds to start a pod since creation, including time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch',
    buckets: POD_START_DURATION_BUCKETS,
  });
  const firstNetworkPod = metrics.gauge({
    name: 'kubelet_first_network_pod_start_sli_duration_seconds',
    help: 'Duration in seconds to start the first network pod, excluding time to pull images and run init containers, measured from pod creation timestamp to when all its containers are reported as started and observed via watch',
  });
  const pods = new Map<string, PerPodState>();
  let firstNetworkPodSeen = false;

  return {
    observedPodOnWatch(pod, whenMs) {
      const uid = pod.metadata.uid;
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') {
        pods.delete(uid);
        return;
      }
      const state = pods.get(uid);
      if (state === undefined) {
        // Only pods that had not started when first seen: not those running before the kubelet started.
        if ((pod.status?.startTime ?? '') === '') pods.set(uid, { metricRecorded: false });
        return;
      }
      if (state.observedRunningTime === undefined || state.metricRecorded || !hasPodStartedSLO(pod)) return;
      const createdMs = parseTime(pod.metadata.creationTimestamp);
      if (createdMs === undefined) return;
      const totalMs = whenMs - createdMs;
      const sliMs = sliDurationMs(state, createdMs, whenMs);
      const stateful = isStatefulPod(pod);
      logger.info('Observed pod startup duration', {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        podStartSLOduration: sliMs / 1000,
        podStartE2EDuration: totalMs / 1000,
        isStatefulPod: stateful,
        podCreationTimestamp: pod.metadata.creationTimestamp,
        observedRunningTime: new Date(state.observedRunningTime).toISOString(),
        watchObservedRunningTime: new Date(whenMs).toISOString(),
      });
      totalDuration.observe(totalMs / 1000);
      // The SLI is of stateless pods; the first pod with its own network shows how long the CNI took to be ready.
      if (!stateful) {
        sliDuration.observe(sliMs / 1000);
        if (pod.spec.hostNetwork !== true && !firstNetworkPodSeen) {
          firstNetworkPod.set(sliMs / 1000);
          firstNetworkPodSeen = true;
        }
      }
      state.metricRecorded = true;
    },
    recordImageStartedPulling(podUID) {
      const state = pods.get(podUID);
      if (state !== undefined) state.firstStartedPulling ??= clock.now();
    },
    recordImageFinishedPulling(podUID) {
      const state = pods.get(podUID);
      if (state?.firstStartedPulling !== undefined) state.lastFinishedPulling = clock.now();
    },
    recordInitContainerStarted(podUID, startedAtMs) {
      const state = pods.get(podUID);
      if (state !== undefined) state.firstInitContainerStart = Math.min(state.firstInitContainerStart ?? Infinity, startedAtMs);
    },
    recordInitContainerFinished(podUID, finishedAtMs) {
      const state = pods.get(podUID);
      if (state !== undefined) state.lastInitContainerFinish = Math.max(state.lastInitContainerFinish ?? -Infinity, finishedAtMs);
    },
    recordStatusUpdated(pod) {
      const state = pods.get(pod.metadata.uid);
      if (state === undefined || state.metricRecorded || state.observedRunningTime !== undefined) return;
      if (hasPodStartedSLO(pod)) state.observedRunningTime = clock.now();
    },
    deletePodStartupState(podUID) {
      pods.delete(podUID);
    },
  };
}

/**
 * Tells the tracker of the pod's init containers as the runtime shows them (their own start and finish
 * times), sidecars left out as upstream; called at each sync. Upstream records an init container's start
 * when its StartContainer returns.
 */
export function recordInitContainerTimes(tracker: PodStartupLatencyTracker, pod: Pod, status: RuntimePodStatus): void {
  const timed = new Set((pod.spec.initContainers ?? []).filter((c) => !isRestartableInitContainer(c)).map((c) => c.name));
  if (timed.size === 0) return;
  for (const c of status.containers) {
    if (!timed.has(c.name)) continue;
    if (c.startedAt !== undefined) tracker.recordInitContainerStarted(pod.metadata.uid, c.startedAt);
    if (c.state === 'exited' && c.finishedAt !== undefined) tracker.recordInitContainerFinished(pod.metadata.uid, c.finishedAt);
  }
}
