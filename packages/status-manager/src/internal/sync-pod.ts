// Upstream status_manager.go syncPod, needsUpdate, needsReconcile and canBeDeleted.
import type { Pod } from '@kubelet-ts/api';
import { formatIssue, isConflict, isMirrorPod, isNotFound, parsePod } from '@kubelet-ts/api';
import type { Clock, Histogram, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { ApiStatusSinkOptions } from '../api-types.js';
import { mergePodStatus } from '../merge-pod-status.js';
import type { VersionedPodStatus } from '../types.js';
import { normalizeStatus } from './normalize-status.js';
import { podStatusPatch } from './status-patch.js';

/** One status to send: the pod's UID (the source's), the UID of the API pod it goes to, the status. */
export interface PodSync {
  uid: string;
  statusUID: string;
  status: VersionedPodStatus;
}

export interface SyncPodContext {
  options: ApiStatusSinkOptions;
  clock: Clock;
  logger: Logger;
  syncDuration: Histogram;
  /** Latest version sent per API pod UID (upstream apiStatusVersions). */
  apiStatusVersions: Map<string, number>;
  /** When the oldest unsent change of a pod was made (for the sync duration). */
  pendingSince: Map<string, number>;
  /** Forget a status the sink holds (the pod was deleted for good). */
  forget(uid: string): void;
}

const isTerminal = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';
const key = (s: VersionedPodStatus): string => `${s.namespace}/${s.name}`;

/** A pod from the API, checked against the schema (nothing from outside is trusted). */
export function apiPodOf(raw: unknown, what: string, logger: Logger): Pod | undefined {
  const parsed = parsePod(raw, what, { requireTypeMeta: false, applyDefaults: false, validate: false });
  if (parsed.ok) return parsed.pod;
  logger.error('Invalid pod from the API server, skipping status update', { pod: what, err: parsed.errors.map(formatIssue).join('; ') });
  return undefined;
}

/** Upstream canBeDeleted: graceful deletion asked, not a mirror pod, terminal in the API, and the kubelet is done. */
export function canBeDeleted(ctx: SyncPodContext, pod: Pod, sync: PodSync): boolean {
  if (pod.metadata.deletionTimestamp === undefined || isMirrorPod(pod)) return false;
  if (!isTerminal(pod.status?.phase)) {
    ctx.logger.debug('Delaying pod deletion as the phase is non-terminal', {
      pod: key(sync.status),
      podUID: sync.uid,
      phase: pod.status?.phase,
    });
    return false;
  }
  return sync.status.podIsFinished || ctx.options.podResourcesAreReclaimed(sync.uid);
}

/** The kubelet's status merged over the API pod's, normalised, and the patch between the two. */
function statusPatchFor(ctx: SyncPodContext, pod: Pod, sync: PodSync): ReturnType<typeof podStatusPatch> {
  const apiStatus = normalizeStatus(pod, pod.status ?? {});
  const merged = mergePodStatus(pod, apiStatus, normalizeStatus(pod, sync.status.status), {
    couldHaveRunningContainers: ctx.options.podCouldHaveRunningContainers(sync.uid),
    now: ctx.clock.now(),
  });
  return podStatusPatch(pod.metadata.uid, pod.status ?? {}, normalizeStatus(pod, merged));
}

/** The informer's copy of the API pod the status goes to, when it is that pod. */
function listedPod(ctx: SyncPodContext, sync: PodSync): Pod | undefined {
  const raw = ctx.options.podLister?.get(key(sync.status));
  if (raw === undefined) return undefined;
  const pod = apiPodOf(raw, `pods/${key(sync.status)}`, ctx.logger);
  return pod?.metadata.uid === sync.statusUID ? pod : undefined;
}

/** Upstream needsUpdate: a version not sent yet, or a deletion the kubelet may now finish. */
export function needsUpdate(ctx: SyncPodContext, sync: PodSync): boolean {
  const sent = ctx.apiStatusVersions.get(sync.statusUID);
  if (sent === undefined || sent < sync.status.version) return true;
  const pod = listedPod(ctx, sync);
  return pod !== undefined && canBeDeleted(ctx, pod, sync);
}

/**
 * Upstream needsReconcile: the API's copy of the pod differs from what the kubelet would send.
 * We ask whether the patch against the informer's copy would be empty, which is the same question
 * with the same merge rules.
 */
export function needsReconcile(ctx: SyncPodContext, sync: PodSync): boolean {
  if (ctx.options.podLister?.isCurrent?.() === false) return true;
  const pod = listedPod(ctx, sync);
  if (pod === undefined) return false;
  if (statusPatchFor(ctx, pod, sync).unchanged) return false;
  ctx.logger.debug('Pod status is inconsistent with cached status for pod, a reconciliation should be triggered', {
    pod: key(sync.status),
    podUID: sync.uid,
  });
  return true;
}

/** Upstream syncPod: GET, checks, merge, PATCH when something changed, then the final DELETE when due. */
export async function syncPod(ctx: SyncPodContext, sync: PodSync): Promise<void> {
  const { logger, options } = ctx;
  const { namespace, name, version } = sync.status;
  const log = { pod: key(sync.status), podUID: sync.uid };
  let pod: Pod | undefined;
  try {
    pod = apiPodOf(await options.podApi.get(namespace, name), `pods/${key(sync.status)}`, logger);
  } catch (err) {
    if (isNotFound(err)) logger.debug('Pod does not exist on the server', log);
    else logger.info('Failed to get status for pod', { ...log, err: errorMessage(err) });
    return;
  }
  if (pod === undefined) return;
  const translated = options.mirrorPods?.translatePodUID(pod.metadata.uid) ?? pod.metadata.uid;
  if (translated !== sync.uid) {
    // Upstream forgets the status; ours stays in the manager, so only this version is passed over.
    logger.info('Pod was deleted and then recreated, skipping status update', { ...log, oldPodUID: sync.uid, podUID: translated });
    ctx.apiStatusVersions.set(sync.statusUID, version);
    return;
  }
  const { patch, unchanged } = statusPatchFor(ctx, pod, sync);
  if (unchanged) {
    logger.debug('Status for pod is up-to-date', { ...log, statusVersion: version });
  } else {
    try {
      const patched = await options.podApi.patchStatus(namespace, name, patch);
      logger.debug('Status for pod updated successfully', { ...log, statusVersion: version, patch: JSON.stringify(patch) });
      pod = apiPodOf(patched, `pods/${key(sync.status)}`, logger) ?? pod;
    } catch (err) {
      logger.info('Failed to update status for pod', { ...log, patch: JSON.stringify(patch), err: errorMessage(err) });
      return;
    }
  }
  const since = ctx.pendingSince.get(sync.uid);
  if (since !== undefined) ctx.syncDuration.observe(Math.max(0, ctx.clock.now() - since) / 1000);
  ctx.pendingSince.delete(sync.uid);
  ctx.apiStatusVersions.set(pod.metadata.uid, version);
  if (canBeDeleted(ctx, pod, sync)) await deletePod(ctx, pod, sync);
}

/** The final DELETE: grace 0 and the UID as precondition, so a pod recreated under the name survives. */
async function deletePod(ctx: SyncPodContext, pod: Pod, sync: PodSync): Promise<void> {
  const log = { pod: key(sync.status), podUID: sync.uid };
  try {
    await ctx.options.podApi.delete(pod.metadata.namespace, pod.metadata.name, { gracePeriodSeconds: 0, uid: pod.metadata.uid });
    ctx.logger.info('Pod fully terminated and removed from etcd', log);
  } catch (err) {
    if (isConflict(err)) ctx.logger.info('Pod was recreated before its final deletion; the new pod is left alone', log);
    else if (isNotFound(err)) ctx.logger.debug('Pod already deleted', log);
    else {
      ctx.logger.info('Failed to delete status for pod', { ...log, err: errorMessage(err) });
      return;
    }
  }
  ctx.forget(sync.uid);
}
