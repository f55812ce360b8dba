import { composePodLifecycle } from '../lifecycle.js';
import type { ComposedPodLifecycle, PodLifecycleOptions } from '../lifecycle.js';

/**
 * A pod lifecycle for tests, with the pieces the public interface does not show: the pod workers
 * (`whenIdle`, `state`, `isPodKnown`), the PLEG, the runtime status cache, the status manager and
 * one housekeeping pass on demand.
 */
export function createPodLifecycleForTest(options: PodLifecycleOptions): ComposedPodLifecycle {
  return composePodLifecycle(options);
}
