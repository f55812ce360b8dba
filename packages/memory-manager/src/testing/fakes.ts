import type { HugePagesInfo, MemoryTopology } from '../topology.js';

const GI = 1024 ** 3;

/**
 * A machine of `nodes` NUMA nodes with `memoryGi` GiB each (and the same huge pages on each), for
 * unit tests: `memoryTopology(2, 16, [{ pageSizeKiB: 2048, numPages: 512 }])`.
 */
export function memoryTopology(nodes: number, memoryGi: number, hugePages: readonly HugePagesInfo[] = []): MemoryTopology {
  return { nodes: Array.from({ length: nodes }, (_, id) => ({ id, memoryBytes: memoryGi * GI, hugePages: [...hugePages] })) };
}

/** The topology manager's affinity store (upstream topologymanager.Store) you set: `affinities.set('uid/name', hint)`. */
export class FakeAffinityStore {
  readonly affinities = new Map<string, { numaNodes: readonly number[] | null; preferred: boolean }>();
  readonly calls: { podUID: string; containerName: string }[] = [];
  set(podUID: string, containerName: string, hint: { numaNodes: readonly number[] | null; preferred: boolean }): void {
    this.affinities.set(`${podUID}/${containerName}`, hint);
  }
  readonly get = (podUID: string, containerName: string): { numaNodes: readonly number[] | null; preferred: boolean } | undefined => {
    this.calls.push({ podUID, containerName });
    return this.affinities.get(`${podUID}/${containerName}`);
  };
}
