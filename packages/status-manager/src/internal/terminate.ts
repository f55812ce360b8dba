// Upstream status_manager.go TerminatePod, hasPodInitialized and initializedContainers.
import type { ContainerStatus, Pod, PodStatus } from '@kubelet-ts/api';
import { isRestartableInitContainer, isStaticPod } from '@kubelet-ts/api';

const UNKNOWN_TERMINATED: ContainerStatus['state'] = {
  terminated: {
    exitCode: 137,
    reason: 'ContainerStatusUnknown',
    message: 'The container could not be located when the pod was terminated',
  },
};

/** Whether the status shows that the pod got past its init containers (upstream hasPodInitialized). */
function hasPodInitialized(pod: Pod, status: PodStatus): boolean {
  const inits = pod.spec.initContainers ?? [];
  if (inits.length === 0) return true;
  if ((status.containerStatuses ?? []).some((s) => s.lastState?.terminated !== undefined || s.state?.waiting === undefined)) return true;
  const initStatuses = status.initContainerStatuses ?? [];
  const last = initStatuses.at(-1);
  const spec = inits[initStatuses.length - 1];
  if (last === undefined || spec === undefined) return false;
  if (isRestartableInitContainer(spec)) return last.state?.running !== undefined && last.started === true;
  return last.lastState?.terminated?.exitCode === 0 || last.state?.terminated?.exitCode === 0;
}

/** How many init containers tried to start: all but the trailing waiting ones, at least one (upstream initializedContainers). */
function initializedCount(statuses: readonly ContainerStatus[]): number {
  for (let i = statuses.length - 1; i >= 0; i--) {
    const s = statuses[i];
    if (s !== undefined && (s.state?.waiting === undefined || s.lastState?.terminated !== undefined)) return i + 1;
  }
  return Math.min(1, statuses.length);
}

/** The final status of a pod whose containers are all stopped (a copy; `status` is left alone). */
export function terminalStatus(pod: Pod, status: PodStatus): PodStatus {
  const out = structuredClone(status);
  if (hasPodInitialized(pod, out)) {
    for (const s of out.containerStatuses ?? []) if (s.state?.terminated === undefined) s.state = structuredClone(UNKNOWN_TERMINATED);
  }
  const inits = out.initContainerStatuses ?? [];
  for (const s of inits.slice(0, initializedCount(inits)))
    if (s.state?.terminated === undefined) s.state = structuredClone(UNKNOWN_TERMINATED);
  // Upstream does not yet give static pods a terminal phase (TODO #116484).
  if (!isStaticPod(pod) && out.phase !== 'Succeeded' && out.phase !== 'Failed') out.phase = 'Failed';
  return out;
}
