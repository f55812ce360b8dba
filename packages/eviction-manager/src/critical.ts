import type { Pod } from '@kubelet-ts/api';
import { isMirrorPod, isStaticPod } from '@kubelet-ts/api';
import { SYSTEM_CRITICAL_PRIORITY, SYSTEM_PRIORITY_CLASSES } from './constants.js';

export interface CriticalPodOptions {
  /** kubelet-ts extension (--evict-static-pods): static pods count as critical only by priority. */
  evictStaticPods?: boolean;
}

/**
 * The pod's priority: `spec.priority`, else (standalone mode has no priority admission to fill it
 * in) the value of a built-in system priority class, else 0 (upstream corev1helpers.PodPriority).
 */
export function podPriority(pod: Pod): number {
  if (typeof pod.spec.priority === 'number') return pod.spec.priority;
  const cls = pod.spec.priorityClassName;
  return cls !== undefined ? (SYSTEM_PRIORITY_CLASSES[cls] ?? 0) : 0;
}

/** Upstream IsCriticalPodBasedOnPriority: priority ≥ 2000000000. */
export function isCriticalPodBasedOnPriority(pod: Pod): boolean {
  return podPriority(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

/**
 * Upstream kubelettypes.IsCriticalPod: static, mirror, or critical by priority. Critical pods are
 * never evicted and always admitted. With `evictStaticPods` a static pod is critical only by priority.
 */
export function isCriticalPod(pod: Pod, options: CriticalPodOptions = {}): boolean {
  if (isStaticPod(pod) && options.evictStaticPods !== true) return true;
  if (isMirrorPod(pod)) return true;
  return isCriticalPodBasedOnPriority(pod);
}
