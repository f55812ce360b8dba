import type { Container, Pod } from '@kubelet-ts/api';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
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
  /** Times each admission (kubelet_topology_manager_admission_duration_ms). */
  clock?: Clock;
  /**
   * Upstream's kubelet_topology_manager_admission_requests_total, _errors_total (a pod refused for its
   * alignment or its allocation; not under `none`) and _duration_ms. Default: none.
   */
  metrics?: Metrics;
}

/** Upstream's buckets of kubelet_topology_manager_admission_duration_ms: ExponentialBuckets(0.05, 2, 15). */
const ADMISSION_DURATION_BUCKETS_MS: readonly number[] = Array.from({ length: 15 }, (_, i) => 0.05 * 2 ** i);

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
  const clock = options.clock ?? systemClock;
  const metrics = options.metrics ?? noopMetrics;
  const admissionRequests = metrics.counter({
    name: 'kubelet_topology_manager_admission_requests_total',
    help: 'The number of admission requests where resources have to be aligned.',
  });
  const admissionErrors = metrics.counter({
    name: 'kubelet_topology_manager_admission_errors_total',
    help: 'The number of admission request failures where resources could not be aligned.',
  });
  const admissionDuration = metrics.histogram({
    name: 'kubelet_topology_manager_admission_duration_ms',
    help: 'Duration in milliseconds to serve a pod admission request.',
    buckets: ADMISSION_DURATION_BUCKETS_MS,
  });

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

  // Upstream's scopes' Admit: the none scope only allocates; the others align, then allocate.
  const scoped: Pick<TopologyManager, 'admit'> = {
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
  };

  return {
    admit(pod) {
      // Upstream manager.Admit: every pod counted and timed (whole milliseconds, as time.Duration.Milliseconds).
      admissionRequests.inc();
      const start = clock.now();
      const result = scoped.admit(pod);
      admissionDuration.observe(Math.floor(clock.now() - start));
      if (!result.admit && options.policy !== 'none') admissionErrors.inc();
      return result;
    },
    affinity: (podUID, name) => affinities.get(podUID)?.get(name),
    removePod: (podUID) => void affinities.delete(podUID),
  };
}
