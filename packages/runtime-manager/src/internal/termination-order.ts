// Upstream kuberuntime termination_order.go (KEP-753): sidecars outlive the regular containers.
import type { Pod } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import type { RunningContainer } from '@kubelet-ts/container-runtime';
import { MINIMUM_GRACE_PERIOD_SECONDS } from './container-kill.js';

export interface TerminationOrder {
  /** Stopped first, all together. */
  regular: RunningContainer[];
  /** Then one by one, in reverse order of their start (the last sidecar in the spec first). */
  sidecars: RunningContainer[];
}

/** Splits the containers to stop into the regular ones and the sidecars (restartable init containers), in stop order. */
export function terminationOrder(pod: Pod | undefined, toStop: RunningContainer[]): TerminationOrder {
  const sidecarOrder = (pod?.spec.initContainers ?? []).filter(isRestartableInitContainer).map((c) => c.name);
  const sidecars = toStop
    .filter((c) => sidecarOrder.includes(c.name))
    .sort((a, b) => sidecarOrder.indexOf(b.name) - sidecarOrder.indexOf(a.name));
  const regular = toStop.filter((c) => !sidecarOrder.includes(c.name));
  return { regular, sidecars };
}

/** When the pod's grace period, counted from `startedMs`, ends: the sidecars stop within it. */
export function sidecarDeadline(pod: Pod, gracePeriodOverrideSeconds: number | undefined, startedMs: number): number {
  const podGrace =
    gracePeriodOverrideSeconds ??
    pod.metadata.deletionGracePeriodSeconds ??
    pod.spec.terminationGracePeriodSeconds ??
    MINIMUM_GRACE_PERIOD_SECONDS;
  return startedMs + podGrace * 1000;
}
