import os from 'node:os';
import type { NodeAllocatable } from '@kubelet-ts/cgroup-manager';
import { machineResources, nodeResourceGetters } from './node-resources.js';

describe('node resources of the wiring', () => {
  it('gives the machine in millicores and bytes until the container manager computed allocatable, then its figures', () => {
    const state: { known?: NodeAllocatable } = {};
    const getters = nodeResourceGetters({ getNodeAllocatable: () => state.known });
    expect(getters.allocatable()).toEqual({ cpuMilli: os.cpus().length * 1000, memoryBytes: os.totalmem() });
    expect(getters.capacity()).toEqual(getters.allocatable());
    const capacity = { cpuMilli: 4000, memoryBytes: 8e9 };
    state.known = {
      capacity,
      reserved: { cpuMilli: 500, memoryBytes: 1e9 },
      evictionMemoryBytes: 1e8,
      evictionEphemeralStorageBytes: 0,
      allocatable: { cpuMilli: 3500, memoryBytes: 6.9e9 },
      enforced: { cpuMilli: 3500, memoryBytes: 7e9 },
    };
    expect(getters.allocatable()).toEqual({ cpuMilli: 3500, memoryBytes: 6.9e9 });
    expect(getters.capacity()).toBe(capacity);
  });

  it('counts a machine core as 1000 millicores', () => {
    expect(machineResources(4, 2 ** 33)).toEqual({ cpuMilli: 4000, memoryBytes: 2 ** 33 });
  });
});
