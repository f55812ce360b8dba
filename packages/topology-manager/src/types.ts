import type { Container, Pod } from '@kubelet-ts/api';

/** A NUMA affinity a resource could be given, and whether it is one of the best (upstream TopologyHint). */
export interface TopologyHint {
  /** The NUMA nodes; null means "any" (no preference). */
  numaNodes: readonly number[] | null;
  preferred: boolean;
}

/**
 * Per resource name: the possible hints; `null` means no preference for that resource, an empty
 * list means it cannot be placed at all. An empty record: no preference for anything.
 */
export type ResourceHints = Readonly<Record<string, readonly TopologyHint[] | null>>;

/** A resource manager that the topology manager aligns (upstream HintProvider): the CPU manager, later memory and devices. */
export interface HintProvider {
  topologyHints(pod: Pod, container: Container): ResourceHints;
  podTopologyHints(pod: Pod): ResourceHints;
  /** Allocates for the container within the affinity (null: anywhere); throws when it cannot. */
  allocate(pod: Pod, container: Container, affinity: readonly number[] | null): void;
  /** Gives back what was allocated for a pod that admission then refused. */
  release?(pod: Pod): void;
}

export type TopologyManagerPolicy = 'none' | 'best-effort' | 'restricted' | 'single-numa-node';
export type TopologyManagerScope = 'container' | 'pod';
