import { isMirrorPod, isStaticPod } from './helpers.js';
import type { Pod } from './schemas.js';

/** Upstream scheduling.SystemCriticalPriority: a pod at or above it is critical. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The two built-in priority classes (upstream scheduling.SystemPriorityClasses). */
export const SYSTEM_PRIORITY_CLASSES: Readonly<Record<string, number>> = Object.freeze({
  'system-cluster-critical': SYSTEM_CRITICAL_PRIORITY,
  'system-node-critical': SYSTEM_CRITICAL_PRIORITY + 1000,
});

/**
 * The pod's priority: `spec.priority`, else (standalone mode has no priority admission to fill it
 * in) the value of a built-in system priority class, else 0 (upstream corev1helpers.PodPriority).
 */
export function podPriority(pod: Pick<Pod, 'spec'>): number {
  if (typeof pod.spec.priority === 'number') return pod.spec.priority;
  const cls = pod.spec.priorityClassName;
  return cls !== undefined ? (SYSTEM_PRIORITY_CLASSES[cls] ?? 0) : 0;
}

/** Upstream kubelettypes.IsCriticalPodBasedOnPriority: priority ≥ 2000000000. */
export function isCriticalPodBasedOnPriority(pod: Pick<Pod, 'spec'>): boolean {
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

/** Upstream kubelettypes.IsCriticalPod: static, mirror, or critical by priority. */
export function isCriticalPod(pod: Pick<Pod, 'metadata' | 'spec'>): boolean {
  return isStaticPod(pod) || isMirrorPod(pod) || isCriticalPodBasedOnPriority(pod);
}

/**
 * Upstream kubelettypes.Preemptable: a critical pod may preempt one that is not, and any pod one of
 * lower priority — both priorities set, as upstream compares only `spec.priority`.
 */
export function preemptable(preemptor: Pick<Pod, 'metadata' | 'spec'>, preemptee: Pick<Pod, 'metadata' | 'spec'>): boolean {
  if (isCriticalPod(preemptor) && !isCriticalPod(preemptee)) return true;
  const a = preemptor.spec.priority;
  const b = preemptee.spec.priority;
  return typeof a === 'number' && typeof b === 'number' && a > b;
}
