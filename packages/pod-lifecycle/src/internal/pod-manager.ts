import type { Pod } from '@kubelet-ts/api';
import { isStaticPod } from '@kubelet-ts/api';
import type { Metrics } from '@kubelet-ts/common';
import type { PodObjectRegistry } from '../types.js';

/**
 * Upstream pod.Manager, as far as standalone mode needs it: the pods the sources want on this
 * node, by UID (the mirror-pod mapping comes with API mode).
 */
export interface PodManager {
  getPodByUID(uid: string): Pod | undefined;
  hasPod(uid: string): boolean;
  /** Every desired pod, in the order first added. */
  getPods(): Pod[];
  /** Adds the pod, or replaces the one with its UID (upstream AddPod/UpdatePod). */
  updatePod(pod: Pod): void;
  removePod(uid: string): void;
}

export function createPodManager(options: { metrics: Metrics; objectRegistry?: PodObjectRegistry | undefined }): PodManager {
  const registry = options.objectRegistry;
  const pods = new Map<string, Pod>();
  // Upstream kubelet_desired_pods: how many pods the sources want here, static or from the API.
  const desired = options.metrics.gauge<'static'>({
    name: 'kubelet_desired_pods',
    help: 'The number of pods the kubelet is being instructed to run. static is true if the pod is not from the apiserver.',
    labelNames: ['static'],
  });
  // Upstream updateMetrics of the pod manager: the ephemeral containers of the pods it has.
  const ephemeral = options.metrics.gauge({
    name: 'kubelet_managed_ephemeral_containers',
    help: 'Current number of ephemeral containers in pods managed by this kubelet.',
  });
  const count = (pod: Pod, by: number): void => {
    desired.inc({ static: staticLabel(pod) }, by);
    const containers = pod.spec.ephemeralContainers?.length ?? 0;
    if (containers > 0) ephemeral.inc(by * containers);
  };
  return {
    getPodByUID: (uid) => pods.get(uid),
    hasPod: (uid) => pods.has(uid),
    getPods: () => [...pods.values()],
    updatePod(pod) {
      const old = pods.get(pod.metadata.uid);
      if (old !== undefined) count(old, -1);
      pods.set(pod.metadata.uid, pod);
      count(pod, 1);
      // Upstream AddPod/UpdatePod: the objects the pod names are watched before it syncs.
      registry?.registerPod(pod);
    },
    removePod(uid) {
      const old = pods.get(uid);
      if (old === undefined) return;
      pods.delete(uid);
      count(old, -1);
      registry?.unregisterPod(old);
    },
  };
}

export function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

/** Upstream's `static` label of the pod counts: "true" for a static pod, "" for an API pod. */
export function staticLabel(pod: Pod): string {
  return isStaticPod(pod) ? 'true' : '';
}
