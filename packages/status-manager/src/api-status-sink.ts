import { errorMessage, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { ApiStatusSink, ApiStatusSinkOptions } from './api-types.js';
import { StatusManagerError } from './errors.js';
import type { PodSync, SyncPodContext } from './internal/sync-pod.js';
import { needsReconcile, needsUpdate, syncPod } from './internal/sync-pod.js';
import type { VersionedPodStatus } from './types.js';

/** Upstream syncPeriod: every status is checked against the API this often. */
export const STATUS_SYNC_PERIOD_MS = 10_000;

/**
 * The API-mode StatusSink (upstream status_manager.go syncBatch and syncPod, pkg/util/pod
 * PatchPodStatus). Each new status version is sent at once (one batch after another, in the
 * background); every `syncPeriodMs` every status is checked again: a version not sent yet (a failed
 * request), a pod whose API copy differs from what the kubelet would send (with a `podLister`), and a
 * pod whose final deletion is due. Per pod: GET; NotFound drops the update; an API pod whose UID
 * (translated through the mirror pod mapping) is not the status's is left alone ("deleted and then
 * recreated"); `mergePodStatus`; a strategic merge PATCH of `pods/<name>/status` with `metadata.uid`
 * as precondition, skipped when the patch is that precondition alone; then, for a pod with a
 * deletionTimestamp, a terminal phase in the API, not a mirror pod, that the kubelet is done with,
 * `DELETE` with grace 0 and the UID precondition (a 409 from a recreated pod is swallowed).
 */
export function createApiStatusSink(options: ApiStatusSinkOptions): ApiStatusSink {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const syncPeriodMs = options.syncPeriodMs ?? STATUS_SYNC_PERIOD_MS;
  const statuses = new Map<string, VersionedPodStatus>();
  const ctx: SyncPodContext = {
    options,
    clock,
    logger,
    // Upstream kubelet_pod_status_sync_duration_seconds.
    syncDuration: (options.metrics ?? noopMetrics).histogram({
      name: 'kubelet_pod_status_sync_duration_seconds',
      help: 'Duration in seconds to sync a pod status update. Measures time from detection of a change to pod status until the API is successfully updated for that pod, even if multiple intevening changes to pod status occur.',
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 20, 30, 45, 60],
    }),
    apiStatusVersions: new Map(),
    pendingSince: new Map(),
    forget: (uid) => {
      statuses.delete(uid);
      ctx.pendingSince.delete(uid);
    },
  };

  let wanted: 'none' | 'changed' | 'all' = 'none';
  let running = false;
  let busy = false;
  let wake: (() => void) | undefined;
  const idleWaiters: Array<() => void> = [];

  const request = (all: boolean): void => {
    wanted = all || wanted === 'all' ? 'all' : 'changed';
    wake?.();
  };
  const settleIdle = (): void => {
    if (wanted !== 'none' || busy) return;
    for (const resolve of idleWaiters.splice(0)) resolve();
  };

  /** Upstream syncBatch: which statuses to send, then one syncPod after another. */
  const syncBatch = async (all: boolean): Promise<void> => {
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
  };

  return {
    statusChanged(status) {
      statuses.set(status.uid, status);
      if (!ctx.pendingSince.has(status.uid)) ctx.pendingSince.set(status.uid, status.at);
      request(false);
    },
    statusRemoved(uid) {
      ctx.forget(uid);
    },
    async run(signal) {
      if (running) throw new StatusManagerError('ALREADY_RUNNING', 'the API status sink is already running');
      if (signal.aborted) return;
      running = true;
      logger.info('Starting to sync pod status with apiserver');
      const ticker = clock.setInterval(() => request(true), syncPeriodMs);
      const onAbort = (): void => wake?.();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        if (statuses.size > 0) request(false);
        while (!signal.aborted) {
          if (wanted === 'none') {
            settleIdle();
            await new Promise<void>((resolve) => (wake = resolve));
            wake = undefined;
            continue;
          }
          const all = wanted === 'all';
          wanted = 'none';
          busy = true;
          try {
            await syncBatch(all);
          } finally {
            busy = false;
          }
        }
      } finally {
        clock.clearInterval(ticker);
        signal.removeEventListener('abort', onAbort);
        running = false;
        wanted = 'none';
        settleIdle();
      }
    },
    whenIdle() {
      if (!running || (wanted === 'none' && !busy)) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.push(resolve));
    },
  };
}
