import type { RunningContainer, RunningPod, RuntimeContainerStatus, RuntimePodStatus } from './types.js';

function podFromStatus(status: RuntimePodStatus, keep: (c: RuntimeContainerStatus) => boolean): RunningPod {
  const sandboxId = status.sandboxes[0]?.id ?? '';
  return {
    uid: status.uid,
    name: status.name,
    namespace: status.namespace,
    sandboxes: status.sandboxes.map((s) => ({ id: s.id, state: s.state, createdAt: s.createdAt })),
    containers: status.containers.filter(keep).map((c): RunningContainer => ({
      id: c.id,
      name: c.name,
      state: c.state,
      image: c.image,
      imageRef: c.imageRef,
      hash: c.hash,
      createdAt: c.createdAt,
      sandboxId,
    })),
  };
}

/**
 * Upstream kubecontainer.ConvertPodStatusToRunningPod: every sandbox, and only the running
 * containers (the ones that need stopping when the pod is killed).
 */
export function toRunningPod(status: RuntimePodStatus): RunningPod {
  return podFromStatus(status, (c) => c.state === 'running');
}

/**
 * Like {@link toRunningPod}, but with every container of the status, exited ones included
 * (kubelet-ts): killPod then also stops containers that are created or in an unknown state,
 * which a pod being terminated for good must not leave behind.
 */
export function toRunningPodWithAllContainers(status: RuntimePodStatus): RunningPod {
  return podFromStatus(status, () => true);
}
