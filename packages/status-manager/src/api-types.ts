import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { StatusSink } from './types.js';

/**
 * The calls the API status sink makes (the kubelet adapts its API client to it). Errors carry
 * `statusCode: number` and `reason: string` (a metav1.Status reason), as kube-client's do, so the
 * sink tells NotFound and Conflict apart with @kubelet-ts/api's `isNotFound`/`isConflict`. Objects
 * returned are validated by the sink.
 */
export interface PodStatusApi {
  /** `GET /api/v1/namespaces/<ns>/pods/<name>`: the Pod. */
  get(namespace: string, name: string): Promise<unknown>;
  /**
   * `PATCH /api/v1/namespaces/<ns>/pods/<name>/status` with
   * `Content-Type: application/strategic-merge-patch+json`: the patched Pod.
   */
  patchStatus(namespace: string, name: string, patch: Record<string, unknown>): Promise<unknown>;
  /**
   * `DELETE /api/v1/namespaces/<ns>/pods/<name>` with the body
   * `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":…}}`.
   */
  delete(namespace: string, name: string, options: { gracePeriodSeconds: 0; uid: string }): Promise<unknown>;
}

/**
 * The static pod ↔ mirror pod mapping (upstream pod.Manager GetUIDTranslations / TranslatePodUID):
 * a static pod's status goes to its mirror pod, whose UID differs.
 */
export interface MirrorPodTranslator {
  /** For a static pod's UID: its mirror pod's UID, or `''` while it has none; `undefined` for any other pod. */
  mirrorPodUIDOf(podUID: string): string | undefined;
  /** A mirror pod's UID → its static pod's UID; any other UID is returned as it is. */
  translatePodUID(uid: string): string;
}

/**
 * The kubelet's copy of the API pods (the pod informer; structurally kube-client's `Informer.get`),
 * for the periodic reconciliation: a pod whose API status differs from the kubelet's is sent again.
 */
export interface PodLister {
  /** The pod `<namespace>/<name>` as last seen, or undefined. */
  get(key: string): unknown;
  /**
   * False while the informer's watch is down or has not caught up since it failed (kube-client's
   * `Informer.isCurrent`): the reconciliation then cannot trust the copy and syncs every pod (GET,
   * and PATCH only what differs), so statuses changed meanwhile by others are put right at once.
   */
  isCurrent?(): boolean;
}

export interface ApiStatusSinkOptions {
  podApi: PodStatusApi;
  /**
   * The pod may still have running containers (upstream ShouldDelayTransitioningPodToTerminal, the
   * pod workers' CouldHaveRunningContainers): its terminal phase is held back until they stopped.
   */
  podCouldHaveRunningContainers(uid: string): boolean;
  /**
   * The kubelet is done with the pod (upstream podIsFinished / PodResourcesAreReclaimed: containers
   * stopped, volumes and cgroup released). With a deletionTimestamp and a terminal phase in the API,
   * the sink then deletes the pod for good. A status from `terminatePod` counts as finished too.
   */
  podResourcesAreReclaimed(uid: string): boolean;
  /** Without one, nothing is reconciled: only new status versions (and pending deletions seen by GET) are sent. */
  podLister?: PodLister;
  /** Without one, every status goes to the pod of its own UID (static pods then find no API pod of theirs). */
  mirrorPods?: MirrorPodTranslator;
  /** Reconciliation period (upstream syncPeriod). Default 10 s. */
  syncPeriodMs?: number;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
}

/**
 * Upstream status manager's API half (syncBatch/syncPod): a StatusSink that PATCHes `pods/<name>/status`
 * on every new status version and every `syncPeriodMs` for reconciliation, and makes the final DELETE.
 */
export interface ApiStatusSink extends StatusSink {
  /** Syncs until the signal aborts; resolves once the batch running then has ended. One run at a time. */
  run(signal: AbortSignal): Promise<void>;
  /** Resolves once no batch runs and none is wanted (at once when not running). For tests and shutdown. */
  whenIdle(): Promise<void>;
}
