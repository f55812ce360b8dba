import type { Pod } from '@kubelet-ts/api';
import { isCriticalPod as isCriticalPodUpstream, isCriticalPodBasedOnPriority, isStaticPod, podPriority } from '@kubelet-ts/api';

// One home for the priority helpers (@kubelet-ts/api); re-exported here, where they were first public.
export { isCriticalPodBasedOnPriority, podPriority };

export interface CriticalPodOptions {
  /** kubelet-ts extension (--evict-static-pods): static pods count as critical only by priority. */
  evictStaticPods?: boolean;
}

/**
 * Upstream kubelettypes.IsCriticalPod: static, mirror, or critical by priority. Critical pods are
 * never evicted and always admitted. With `evictStaticPods` a static pod is critical only by priority.
 */
export function isCriticalPod(pod: Pod, options: CriticalPodOptions = {}): boolean {
  if (options.evictStaticPods === true && isStaticPod(pod)) return isCriticalPodBasedOnPriority(pod);
  return isCriticalPodUpstream(pod);
}
