import { noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { ApiStatusSink, ApiStatusSinkOptions } from './api-types.js';
import { StatusManagerError } from './errors.js';
import { syncBatch } from './internal/sync-batch.js';
import type { SyncPodContext } from './internal/sync-pod.js';
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
            await syncBatch(ctx, statuses, all);
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
