import type { CpuManagerRuntime, RunningContainer } from '../cpu-manager.js';
import type { CpuTopology } from '../topology.js';

/** A topology of `sockets` × `coresPerSocket` × `threadsPerCore` CPUs, numbered as Linux usually does (threads last). */
export function cpuTopology(sockets: number, coresPerSocket: number, threadsPerCore = 1): CpuTopology {
  const cpus = [];
  const perThread = sockets * coresPerSocket;
  for (let thread = 0; thread < threadsPerCore; thread += 1) {
    for (let socket = 0; socket < sockets; socket += 1) {
      for (let core = 0; core < coresPerSocket; core += 1) {
        cpus.push({ id: thread * perThread + socket * coresPerSocket + core, core, socket, numaNode: socket });
      }
    }
  }
  return { cpus: cpus.sort((a, b) => a.id - b.id) };
}

/** Running containers you set, and the cpuset updates the manager made. */
export class FakeCpuManagerRuntime implements CpuManagerRuntime {
  containers: RunningContainer[] = [];
  readonly updates: { containerId: string; cpuset: string }[] = [];
  async listRunningContainers(): Promise<readonly RunningContainer[]> {
    return this.containers;
  }
  async updateCpuset(containerId: string, cpuset: string): Promise<void> {
    this.updates.push({ containerId, cpuset });
  }
}
