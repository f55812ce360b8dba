import type { Container, Pod } from '@kubelet-ts/api';
import { getPodQOSClass, quantityMilliValue } from '@kubelet-ts/api';

/**
 * Upstream guaranteedCPUs: the exclusive CPUs a container gets under the static policy — its CPU
 * request when the pod is Guaranteed and the request is a whole number of CPUs, else none.
 */
export function guaranteedCpus(pod: Pod, container: Container): number {
  if (getPodQOSClass(pod) !== 'Guaranteed') return 0;
  const request = container.resources?.requests?.cpu ?? container.resources?.limits?.cpu;
  if (request === undefined) return 0;
  const milli = quantityMilliValue(request);
  return milli > 0 && milli % 1000 === 0 ? milli / 1000 : 0;
}

/**
 * The containers that hold exclusive CPUs for the pod's lifetime: regular containers and
 * restartable init containers (sidecars). Other init containers run in the shared pool
 * (upstream lends them exclusive CPUs that the app containers reuse; kubelet-ts does not).
 */
export function longRunningContainers(pod: Pod): Container[] {
  return [...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always'), ...pod.spec.containers];
}
