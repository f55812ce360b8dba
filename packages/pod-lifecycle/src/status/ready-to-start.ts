// Upstream pkg/kubelet/status/generate.go: the condition that needs the runtime's view of the sandbox.
import type { Pod, PodCondition } from '@kubelet-ts/api';
import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';

/**
 * Upstream PodSandboxChanged, reduced to what the runtime status tells us: a new sandbox is
 * needed when there is none, the newest is not ready, several are ready, or a pod-network
 * sandbox has no IP.
 */
export function podSandboxNeedsRecreate(pod: Pod, status: RuntimePodStatus): boolean {
  const newest = status.sandboxes[0];
  if (newest === undefined || newest.state !== 'ready') return true;
  if (status.sandboxes.filter((s) => s.state === 'ready').length > 1) return true;
  if (pod.spec.hostNetwork !== true && (newest.ip === undefined || newest.ip === '')) return true;
  return false;
}

export function generatePodReadyToStartContainersCondition(pod: Pod, status: RuntimePodStatus): PodCondition {
  return { type: 'PodReadyToStartContainers', status: podSandboxNeedsRecreate(pod, status) ? 'False' : 'True' };
}
