import type { PodStatus } from '@kubelet-ts/api';
import type { KnownContainer, KnownPodStatus } from './worker.js';

function stripRuntime(id: string | undefined): string {
  return (id ?? '').replace(/^[^:]+:\/\//, '');
}

/** What the workers need of a pod status: phase, pod IP, and each container's ID (without `<runtime>://`) and state. */
export function knownStatus(status: PodStatus): KnownPodStatus {
  const containers = new Map<string, KnownContainer>();
  for (const st of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const running = st.state?.running;
    const startedAt = running?.startedAt !== undefined ? Date.parse(running.startedAt) : NaN;
    containers.set(st.name, {
      id: stripRuntime(st.containerID),
      running: running !== undefined,
      terminated: st.state?.terminated !== undefined,
      ...(Number.isFinite(startedAt) ? { startedAt } : {}),
    });
  }
  return { phase: status.phase, podIP: status.podIP ?? '', containers };
}
