// Upstream status_manager.go syncBatch.
import { errorMessage } from '@kubelet-ts/common';
import type { VersionedPodStatus } from '../types.js';
import type { PodSync, SyncPodContext } from './sync-pod.js';
import { needsReconcile, needsUpdate, syncPod } from './sync-pod.js';

/**
 * Upstream syncBatch: which statuses to send (new versions; with `all`, also pending deletions and
 * pods whose API copy differs), then one syncPod after another.
 */
export async function syncBatch(ctx: SyncPodContext, statuses: ReadonlyMap<string, VersionedPodStatus>, all: boolean): Promise<void> {
  const { options, logger } = ctx;
  const due: PodSync[] = [];
  const live = new Set<string>();
  for (const [uid, status] of statuses) {
    let statusUID = uid;
    const mirrorUID = options.mirrorPods?.mirrorPodUIDOf(uid);
    if (mirrorUID !== undefined) {
      if (mirrorUID === '') {
        logger.debug('Static pod does not have a corresponding mirror pod; skipping', {
          podUID: uid,
          pod: `${status.namespace}/${status.name}`,
        });
        continue;
      }
      statusUID = mirrorUID;
    }
    live.add(statusUID);
    const sync: PodSync = { uid, statusUID, status };
    const sent = ctx.apiStatusVersions.get(statusUID);
    if (!all) {
      if (sent === undefined || sent < status.version) due.push(sync);
    } else if (needsUpdate(ctx, sync)) {
      due.push(sync);
    } else if (needsReconcile(ctx, sync)) {
      ctx.apiStatusVersions.delete(statusUID);
      due.push(sync);
    }
  }
  if (all) for (const uid of [...ctx.apiStatusVersions.keys()]) if (!live.has(uid)) ctx.apiStatusVersions.delete(uid);
  for (const sync of due) {
    // The status may have moved on (or gone) while earlier pods were synced.
    const current = statuses.get(sync.uid);
    if (current === undefined) continue;
    try {
      await syncPod(ctx, { ...sync, status: current });
    } catch (err) {
      logger.error('Pod status sync failed', { pod: `${current.namespace}/${current.name}`, podUID: sync.uid, err: errorMessage(err) });
    }
  }
}
