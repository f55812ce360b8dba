import type { Container, Pod } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import type { RuntimeContainerStatus, RuntimePodStatus } from './types.js';

/** The newest status of the container with this name (upstream FindContainerStatusByName; statuses are newest first). */
export function findContainerStatus(status: RuntimePodStatus, name: string): RuntimeContainerStatus | undefined {
  return status.containers.find((c) => c.name === name);
}

/**
 * Upstream kubecontainer.ShouldContainerBeRestarted: never after the pod is marked deleted; always
 * when it never ran (or all its instances were collected), or it is created/unknown; a sidecar
 * (restartable init container) always; otherwise per restartPolicy (Never: no; OnFailure: only
 * after a non-zero exit; Always: yes). The sync (computePodActions) and the status (which shows
 * a container to be restarted as Waiting) both ask this, so that they agree.
 */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: RuntimePodStatus): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const latest = findContainerStatus(status, container.name);
  if (latest === undefined) return true;
  if (latest.state === 'running') return false;
  if (latest.state === 'unknown' || latest.state === 'created') return true;
  // Only init containers may set restartPolicy (validation forbids it on regular ones).
  if (isRestartableInitContainer(container)) return true;
  const policy = pod.spec.restartPolicy ?? 'Always';
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && latest.exitCode === 0) return false;
  return true;
}
