import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { PodStats, Summary } from '@kubelet-ts/stats';
import type { EvictionSignal } from '../constants.js';
import { SIGNAL_TO_RESOURCE } from '../constants.js';
import { hasLocalStorageLimits } from '../local-storage.js';
import type { PodStatsFn } from '../ranking.js';
import { makeSignalObservations } from '../signals.js';
import type { EvictionThreshold } from '../thresholds.js';
import type { EvictionContext } from './context.js';
import { NO_PODS } from './context.js';
import { evictRankedPod } from './evict-ranked-pod.js';
import { localStorageEviction } from './local-storage-eviction.js';
import type { PressureConditions } from './pressure-conditions.js';
import { reclaimNodeLevel } from './reclaim.js';
import type { ThresholdState } from './threshold-state.js';

/** What synchronize keeps from one pass to the next. */
export interface EvictionState {
  readonly thresholds: ThresholdState;
  readonly conditions: PressureConditions;
}

/** Upstream byEvictionPriority: memory first (the other signals all have a resource to reclaim). */
function isMemorySignal(signal: EvictionSignal): boolean {
  return signal === 'memory.available' || signal === 'allocatableMemory.available';
}

function hasDedicatedImageFs(ctx: EvictionContext, summary: Summary): boolean {
  if (ctx.dedicatedImageFs !== undefined) return ctx.dedicatedImageFs;
  const nodefs = summary.node.fs?.capacityBytes;
  const imagefs = summary.node.runtime?.imageFs?.capacityBytes;
  return nodefs !== undefined && imagefs !== undefined && nodefs !== imagefs;
}

/**
 * Upstream managerImpl.synchronize: observe, update the conditions, evict for local storage, then
 * reclaim node-level resources and, if that is not enough, evict one pod. Resolves with the pods evicted.
 */
export async function synchronize(ctx: EvictionContext, state: EvictionState, abort?: AbortSignal): Promise<Pod[]> {
  const { logger } = ctx;
  const activePods = ctx.getActivePods();
  // The signals are node figures; pod figures are needed only for pods with local-storage limits, and
  // for every pod once pods must be ranked (fetched then). As upstream, but without measuring ~110 pods
  // every 10 s for nothing.
  const limited = ctx.localStorage ? new Set(activePods.filter(hasLocalStorageLimits).map((p) => p.metadata.uid)) : NO_PODS;
  let summary: Summary;
  try {
    summary = await ctx.summaryProvider.get({ updateStats: true, podUIDs: limited, ...(abort !== undefined ? { signal: abort } : {}) });
  } catch (err) {
    logger.error('Eviction manager: failed to get summary stats', { err: errorMessage(err) });
    return [];
  }
  const now = ctx.clock.now();
  const observations = makeSignalObservations(summary);
  const dedicatedImageFs = hasDedicatedImageFs(ctx, summary);
  const { met, conditions } = state.thresholds.observe(observations, now);
  state.conditions.set(conditions, now);

  if (ctx.localStorage) {
    const byUID = new Map<string, PodStats>(summary.pods.map((p) => [p.podRef.uid, p]));
    const stats: PodStatsFn = (pod) => byUID.get(pod.metadata.uid);
    const evicted = await localStorageEviction(ctx, activePods, stats, dedicatedImageFs);
    if (evicted.length > 0) return evicted;
  }
  if (met.length === 0) {
    logger.debug('Eviction manager: no resources are starved');
    return [];
  }
  const ordered = [...met].sort((a, b) => Number(isMemorySignal(b.signal)) - Number(isMemorySignal(a.signal)));
  const threshold = ordered[0] as EvictionThreshold;
  logger.info('Eviction manager: attempting to reclaim', { resourceName: SIGNAL_TO_RESOURCE[threshold.signal], signal: threshold.signal });
  if (await reclaimNodeLevel(ctx, threshold.signal, dedicatedImageFs, abort)) return [];
  return evictRankedPod(ctx, activePods, { threshold, met, observations, dedicatedImageFs }, abort);
}
