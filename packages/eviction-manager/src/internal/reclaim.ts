import { errorMessage } from '@kubelet-ts/common';
import type { Summary } from '@kubelet-ts/stats';
import type { EvictionSignal } from '../constants.js';
import { SIGNAL_TO_RESOURCE } from '../constants.js';
import { makeSignalObservations, thresholdsMet } from '../signals.js';
import type { NodeReclaimFn } from '../types.js';
import type { EvictionContext } from './context.js';
import { NO_PODS } from './context.js';

/** Upstream buildSignalToNodeReclaimFuncs: what may free the signal's resource without evicting a pod. */
function reclaimFuncs(ctx: EvictionContext, signal: EvictionSignal, dedicatedImageFs: boolean): readonly NodeReclaimFn[] {
  switch (signal) {
    case 'nodefs.available':
    case 'nodefs.inodesFree':
      // With a dedicated imagefs, images and writable layers are not on nodefs: nothing to reclaim there.
      return dedicatedImageFs ? [] : ctx.nodeReclaims;
    case 'imagefs.available':
    case 'imagefs.inodesFree':
    case 'containerfs.available':
    case 'containerfs.inodesFree':
      return ctx.nodeReclaims;
    default:
      return [];
  }
}

/**
 * Upstream reclaimNodeLevelResources: runs the signal's node-level reclaims, then looks again.
 * True when every threshold (grace periods ignored, minimum reclaim included) is clear.
 */
export async function reclaimNodeLevel(
  ctx: EvictionContext,
  signal: EvictionSignal,
  dedicatedImageFs: boolean,
  abort: AbortSignal | undefined,
): Promise<boolean> {
  const { logger } = ctx;
  const funcs = reclaimFuncs(ctx, signal, dedicatedImageFs);
  if (funcs.length === 0) return false;
  for (const fn of funcs) {
    try {
      await fn(abort);
    } catch (err) {
      logger.info('Eviction manager: unexpected error when attempting to reduce resource pressure', {
        resourceName: SIGNAL_TO_RESOURCE[signal],
        err: errorMessage(err),
      });
    }
  }
  let summary: Summary;
  try {
    summary = await ctx.summaryProvider.get({ updateStats: true, podUIDs: NO_PODS, ...(abort !== undefined ? { signal: abort } : {}) });
  } catch (err) {
    logger.error('Eviction manager: failed to get summary stats after resource reclaim', { err: errorMessage(err) });
    return false;
  }
  if (thresholdsMet(ctx.thresholds, makeSignalObservations(summary), true).length === 0) {
    logger.info('Eviction manager: able to reduce resource pressure without evicting pods.', { resourceName: SIGNAL_TO_RESOURCE[signal] });
    return true;
  }
  return false;
}
