import type { Pod } from '@kubelet-ts/api';
import { podPriority } from '@kubelet-ts/api';
import { DEFAULT_PRIORITY, SYSTEM_CRITICAL_PRIORITY } from './constants.js';

/** One priority group of upstream's shutdownGracePeriodByPodPriority: pods of at least `priority` get this many seconds. */
export interface ShutdownGracePeriodByPodPriority {
  priority: number;
  shutdownGracePeriodSeconds: number;
}

// The pod's priority: spec.priority, else a built-in system class's, else 0 (one home: @kubelet-ts/api).
export { podPriority };

/**
 * Upstream migrateConfig: shutdownGracePeriod and shutdownGracePeriodCriticalPods as two groups,
 * regular pods (priority 0 and up) get the difference, critical pods (2000000000 and up) the
 * critical budget, whole seconds. Empty when the grace period is 0 (the feature is off).
 */
export function migrateConfig(
  shutdownGracePeriodMs: number,
  shutdownGracePeriodCriticalPodsMs: number,
): ShutdownGracePeriodByPodPriority[] {
  if (shutdownGracePeriodMs === 0) return [];
  const defaultMs = shutdownGracePeriodMs - shutdownGracePeriodCriticalPodsMs;
  if (defaultMs < 0) return [];
  const criticalMs = shutdownGracePeriodMs - defaultMs;
  return [
    { priority: DEFAULT_PRIORITY, shutdownGracePeriodSeconds: Math.trunc(defaultMs / 1000) },
    { priority: SYSTEM_CRITICAL_PRIORITY, shutdownGracePeriodSeconds: Math.trunc(criticalMs / 1000) },
  ];
}

/** The groups a pod shutdown goes through, lowest priority first (upstream newPodManager). */
export function shutdownGroups(o: {
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  shutdownGracePeriodByPodPriority?: readonly ShutdownGracePeriodByPodPriority[];
  /** The GracefulNodeShutdownBasedOnPodPriority gate (default on). */
  byPodPriority?: boolean;
}): ShutdownGracePeriodByPodPriority[] {
  const byPriority = o.byPodPriority !== false ? (o.shutdownGracePeriodByPodPriority ?? []) : [];
  const groups =
    byPriority.length > 0 ? byPriority.map((g) => ({ ...g })) : migrateConfig(o.shutdownGracePeriodMs, o.shutdownGracePeriodCriticalPodsMs);
  return groups.sort((a, b) => a.priority - b.priority);
}

/** Upstream periodRequested: the sum of the groups' budgets, what logind's InhibitDelayMaxSec must allow. */
export function periodRequestedMs(groups: readonly ShutdownGracePeriodByPodPriority[]): number {
  return groups.reduce((sum, g) => sum + g.shutdownGracePeriodSeconds, 0) * 1000;
}

/**
 * Upstream groupByPriority: each pod joins the highest group whose priority is at most its own; a
 * pod below the lowest joins the lowest, one above the highest the highest.
 */
export function groupByPriority(
  groups: readonly ShutdownGracePeriodByPodPriority[],
  pods: readonly Pod[],
): Array<ShutdownGracePeriodByPodPriority & { pods: Pod[] }> {
  const out = groups.map((g) => ({ ...g, pods: [] as Pod[] }));
  if (out.length === 0) return out;
  for (const pod of pods) {
    const priority = podPriority(pod);
    let index = out.findIndex((g) => g.priority >= priority);
    if (index < 0) index = out.length - 1;
    else if (index > 0 && (out[index] as { priority: number }).priority > priority) index--;
    out[index]?.pods.push(pod);
  }
  return out;
}
