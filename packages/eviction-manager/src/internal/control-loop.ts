import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { POD_CLEANUP_POLL_MS } from '../constants.js';
import type { EvictionContext } from './context.js';
import { podKey } from './context.js';

/** Upstream waitForPodsCleanup: until the evicted pods' resources are reclaimed, or the cleanup timeout. */
async function waitForPodsCleanup(ctx: EvictionContext, pods: readonly Pod[], abort: AbortSignal): Promise<void> {
  const { clock, logger } = ctx;
  const deadline = clock.now() + ctx.podCleanupTimeoutMs;
  while (clock.now() < deadline) {
    if (pods.every((p) => ctx.podCleanedUp(p))) {
      logger.info('Eviction manager: pods successfully cleaned up', { pods: pods.map(podKey) });
      return;
    }
    await clock.sleep(POD_CLEANUP_POLL_MS, abort);
  }
  logger.warn('Eviction manager: timed out waiting for pods to be cleaned up', { pods: pods.map(podKey) });
}

/**
 * Upstream managerImpl.Start's loop: synchronize every monitoring interval; after an eviction, wait
 * for the pods' cleanup instead, so that the next pass sees what the eviction freed.
 */
export async function runControlLoop(
  ctx: EvictionContext,
  synchronize: (abort: AbortSignal) => Promise<Pod[]>,
  signal: AbortSignal,
): Promise<void> {
  const { clock, logger, monitoringIntervalMs } = ctx;
  logger.info('Eviction manager: starting control loop', {
    monitoringInterval: `${monitoringIntervalMs}ms`,
    thresholds: ctx.thresholds.map((t) => t.signal),
  });
  while (!signal.aborted) {
    try {
      const evicted = await synchronize(signal);
      if (evicted.length > 0) await waitForPodsCleanup(ctx, evicted, signal);
      else await clock.sleep(monitoringIntervalMs, signal);
    } catch (err) {
      if (signal.aborted) break;
      logger.error('Eviction manager: synchronize failed', { err: errorMessage(err) });
      await clock.sleep(monitoringIntervalMs, signal).catch(() => undefined);
    }
  }
}
