import type { Container, Pod } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { TopologyManagerError } from './errors.js';
import { mergeHints } from './merge.js';
import type { HintProvider, TopologyHint, TopologyManagerPolicy, TopologyManagerScope } from './types.js';

/** Upstream's reason and message for a pod whose resources cannot be aligned. */
export const TOPOLOGY_AFFINITY_ERROR = 'TopologyAffinityError';
export const TOPOLOGY_AFFINITY_MESSAGE = 'Resources cannot be allocated with Topology locality';
const MAX_NUMA_NODES = 8;

export interface TopologyManagerOptions {
  /** `topologyManagerPolicy`. */
  policy: TopologyManagerPolicy;
  /** `topologyManagerScope`: one alignment per container (default) or one for the whole pod. */
  scope?: TopologyManagerScope;
  /** The machine's NUMA nodes. */
  numaNodes: readonly number[];
  /** The resource managers to align, in upstream's order (CPU, memory, devices). */
  providers: readonly HintProvider[];
  logger?: Logger;
}

/** Upstream topologymanager.Manager, as the pod admit handler it is. */
export interface TopologyManager {
  admit(pod: Pod): { admit: boolean; reason?: string; message?: string };
  /** The affinity chosen for a container at admission (undefined before, or under `none`). */
  affinity(podUID: string, containerName: string): TopologyHint | undefined;
  /** Forgets a pod's affinities (it is gone). */
  removePod(podUID: string): void;
}

export function createTopologyManager(options: TopologyManagerOptions): TopologyManager {
  const logger = options.logger ?? noopLogger;
  const scope = options.scope ?? 'container';
  if (options.policy !== 'none' && options.numaNodes.length > MAX_NUMA_NODES) {
    throw new TopologyManagerError('INVALID_CONFIGURATION', `unsupported on machines with more than ${MAX_NUMA_NODES} NUMA Nodes`);
  }
  const affinities = new Map<string, Map<string, TopologyHint>>();
  const containersOf = (pod: Pod): Container[] => [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  const refuse = { admit: false, reason: TOPOLOGY_AFFINITY_ERROR, message: TOPOLOGY_AFFINITY_MESSAGE };

  const allocate = (
    pod: Pod,
    container: Container,
    hint: TopologyHint | undefined,
  ): { admit: boolean; reason?: string; message?: string } | undefined => {
    try {
      for (const provider of options.providers) provider.allocate(pod, container, hint?.numaNodes ?? null);
      return undefined;
    } catch (err) {
      releaseAll(pod);
      return {
        admit: false,
        reason: 'UnexpectedAdmissionError',
        message: `Allocate failed due to ${errorMessage(err)}, which is unexpected`,
      };
    }
  };
  // A refused pod keeps nothing (upstream leaves it to the managers' stale-state cleanup).
  const releaseAll = (pod: Pod): void => {
    affinities.delete(pod.metadata.uid);
    for (const provider of options.providers) provider.release?.(pod);
  };
  const remember = (pod: Pod, container: Container, hint: TopologyHint): void => {
    const pods = affinities.get(pod.metadata.uid) ?? new Map<string, TopologyHint>();
    pods.set(container.name, hint);
    affinities.set(pod.metadata.uid, pods);
  };

  return {
    admit(pod) {
      if (options.policy === 'none') {
        for (const container of containersOf(pod)) {
          const failed = allocate(pod, container, undefined);
          if (failed !== undefined) return failed;
        }
        return { admit: true };
      }
      const policy = options.policy;
      if (scope === 'pod') {
        const { hint, admit } = mergeHints(
          policy,
          options.numaNodes,
          options.providers.map((p) => p.podTopologyHints(pod)),
        );
        logger.info('Best TopologyHint', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, hint, admit });
        if (!admit) {
          releaseAll(pod);
          return refuse;
        }
        for (const container of containersOf(pod)) {
          remember(pod, container, hint);
          const failed = allocate(pod, container, hint);
          if (failed !== undefined) return failed;
        }
        return { admit: true };
      }
      for (const container of containersOf(pod)) {
        const { hint, admit } = mergeHints(
          policy,
          options.numaNodes,
          options.providers.map((p) => p.topologyHints(pod, container)),
        );
        logger.info('Best TopologyHint', { pod: `${pod.metadata.namespace}/${pod.metadata.name}`, container: container.name, hint, admit });
        if (!admit) {
          releaseAll(pod);
          return refuse;
        }
        remember(pod, container, hint);
        const failed = allocate(pod, container, hint);
        if (failed !== undefined) return failed;
      }
      return { admit: true };
    },
    affinity: (podUID, name) => affinities.get(podUID)?.get(name),
    removePod: (podUID) => void affinities.delete(podUID),
  };
}
