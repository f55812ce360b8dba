import type { Container, Pod } from '@kubelet-ts/api';
import type { HintProvider, ResourceHints } from '../types.js';

/** A HintProvider that answers the hints you give it and records allocations; `failAllocate` makes allocate throw. */
export class FakeHintProvider implements HintProvider {
  readonly allocations: { pod: string; container: string; affinity: readonly number[] | null }[] = [];
  readonly released: string[] = [];
  failAllocate: string | undefined;
  constructor(
    public hints: ResourceHints = {},
    public podHints: ResourceHints = {},
  ) {}
  topologyHints(_pod: Pod, _container: Container): ResourceHints {
    return this.hints;
  }
  podTopologyHints(_pod: Pod): ResourceHints {
    return this.podHints;
  }
  allocate(pod: Pod, container: Container, affinity: readonly number[] | null): void {
    if (this.failAllocate !== undefined) throw new Error(this.failAllocate);
    this.allocations.push({ pod: pod.metadata.name, container: container.name, affinity });
  }
  release(pod: Pod): void {
    this.released.push(pod.metadata.name);
  }
}
