import type { Container, Pod } from '@kubelet-ts/api';
import { quantityValue } from '@kubelet-ts/api';

function memoryLimit(container: Container): number | undefined {
  const limit = container.resources?.limits?.['memory'];
  if (limit === undefined) return undefined;
  try {
    return quantityValue(limit);
  } catch {
    return undefined;
  }
}

/** A container's memory limit in bytes, when its spec sets one. */
export function containerMemoryLimit(pod: Pod, name: string): number | undefined {
  const container = pod.spec.containers.find((c) => c.name === name) ?? pod.spec.initContainers?.find((c) => c.name === name);
  return container === undefined ? undefined : memoryLimit(container);
}

/**
 * The pod cgroup's memory limit as the kubelet sets it (upstream ResourceConfigForPod): only when
 * every container has a limit; the larger of the containers' sum and the largest init container's.
 */
export function podMemoryLimit(pod: Pod): number | undefined {
  let sum = 0;
  for (const c of pod.spec.containers) {
    const limit = memoryLimit(c);
    if (limit === undefined) return undefined;
    sum += limit;
  }
  let init = 0;
  for (const c of pod.spec.initContainers ?? []) {
    const limit = memoryLimit(c);
    if (limit === undefined) return undefined;
    init = Math.max(init, limit);
  }
  return Math.max(sum, init);
}

/**
 * Upstream isVolumeEphemeral: the volumes that count in a pod's ephemeral-storage use are emptyDir
 * on the node's disk (not `medium: Memory`), configMap and gitRepo.
 */
export function ephemeralVolumeNames(pod: Pod): Set<string> {
  const names = new Set<string>();
  for (const volume of pod.spec.volumes ?? []) {
    const v = volume as { name: string; emptyDir?: { medium?: string }; configMap?: unknown; gitRepo?: unknown };
    if ((v.emptyDir !== undefined && (v.emptyDir.medium ?? '') === '') || v.configMap !== undefined || v.gitRepo !== undefined)
      names.add(v.name);
  }
  return names;
}
