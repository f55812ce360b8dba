import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCpuSet } from './cpuset.js';

/** One logical CPU and where it sits (upstream topology.CPUInfo). */
export interface CpuInfo {
  id: number;
  /** Physical core (threads of one core share it). */
  core: number;
  socket: number;
  numaNode: number;
}

/** The machine's CPUs (upstream cpumanager/topology.CPUTopology), from sysfs. */
export interface CpuTopology {
  cpus: readonly CpuInfo[];
}

export interface ReadCpuTopologyOptions {
  /** Default `/sys/devices/system`. */
  sysfs?: string;
  readFile?: (path: string) => Promise<string>;
}

/** Reads the online CPUs with their core, socket and NUMA node from sysfs (what cAdvisor reports). */
export async function readCpuTopology(options: ReadCpuTopologyOptions = {}): Promise<CpuTopology> {
  const sysfs = options.sysfs ?? '/sys/devices/system';
  const read = options.readFile ?? ((path: string) => readFile(path, 'utf8'));
  const number = async (path: string, fallback: number): Promise<number> => {
    const text = await read(path).catch(() => undefined);
    const value = text === undefined ? Number.NaN : Number(text.trim());
    return Number.isInteger(value) ? value : fallback;
  };
  const online = parseCpuSet((await read(join(sysfs, 'cpu', 'online'))).trim());
  const nodes = parseCpuSet((await read(join(sysfs, 'node', 'online')).catch(() => '0')).trim());
  const numaOf = new Map<number, number>();
  for (const node of nodes) {
    const list = await read(join(sysfs, 'node', `node${node}`, 'cpulist')).catch(() => undefined);
    for (const cpu of list === undefined ? [] : parseCpuSet(list.trim())) numaOf.set(cpu, node);
  }
  const cpus: CpuInfo[] = [];
  for (const id of online) {
    const dir = join(sysfs, 'cpu', `cpu${id}`, 'topology');
    cpus.push({
      id,
      core: await number(join(dir, 'core_id'), id),
      socket: await number(join(dir, 'physical_package_id'), 0),
      numaNode: numaOf.get(id) ?? 0,
    });
  }
  return { cpus };
}
