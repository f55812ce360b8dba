import { availableParallelism } from 'node:os';
import { readFile } from 'node:fs/promises';
import type { NodeResources, Quantity } from '@kubelet-ts/api';
import { quantityMilliValue, quantityValue } from '@kubelet-ts/api';
import { CgroupError } from './errors.js';

export interface NodeAllocatableInput {
  capacity: NodeResources;
  /** `kubeReserved` / `systemReserved` maps (cpu, memory, pid). */
  kubeReserved?: Record<string, Quantity>;
  systemReserved?: Record<string, Quantity>;
  /** `evictionHard`; only `memory.available` counts (quantity or percentage of memory capacity). */
  evictionHard?: Record<string, string>;
}

export interface NodeAllocatable {
  capacity: NodeResources;
  /** kubeReserved + systemReserved. */
  reserved: NodeResources;
  /** The hard eviction threshold reserved for memory.available. */
  evictionMemoryBytes: number;
  /** What the node advertises: capacity − kubeReserved − systemReserved − hard eviction (never negative). */
  allocatable: NodeResources;
  /**
   * What is enforced on kubepods: capacity − kubeReserved − systemReserved. As upstream
   * (getNodeAllocatableInternalAbsolute), the eviction threshold is left to the eviction manager so
   * that pods are evicted before the kernel OOM-kills in kubepods.
   */
  enforced: NodeResources;
}

function reservedAmount(map: Record<string, Quantity> | undefined, key: string, field: string, milli: boolean): number {
  const value = map?.[key];
  if (value === undefined) return 0;
  try {
    return milli ? quantityMilliValue(value) : quantityValue(value);
  } catch (err) {
    throw new CgroupError('INVALID_CONFIG', `${field}.${key}: ${JSON.stringify(value)} is not a valid quantity`, { cause: err });
  }
}

/** Parses `memory.available` of evictionHard into bytes (percentages of the memory capacity). */
export function evictionMemoryReservation(evictionHard: Record<string, string> | undefined, memoryCapacity: number): number {
  const value = evictionHard?.['memory.available'];
  if (value === undefined || value === '') return 0;
  if (value.endsWith('%')) {
    const pct = Number(value.slice(0, -1));
    if (!Number.isFinite(pct) || pct < 0 || pct > 100)
      throw new CgroupError('INVALID_CONFIG', `evictionHard.memory.available: invalid percentage ${JSON.stringify(value)}`);
    return Math.floor((memoryCapacity * pct) / 100);
  }
  try {
    return quantityValue(value);
  } catch (err) {
    throw new CgroupError('INVALID_CONFIG', `evictionHard.memory.available: ${JSON.stringify(value)} is not a valid quantity`, {
      cause: err,
    });
  }
}

/** Upstream GetNodeAllocatableReservation / getNodeAllocatableAbsolute for cpu, memory and pids. */
export function computeNodeAllocatable(input: NodeAllocatableInput): NodeAllocatable {
  const { capacity } = input;
  const reserved: NodeResources = {
    cpuMilli:
      reservedAmount(input.kubeReserved, 'cpu', 'kubeReserved', true) + reservedAmount(input.systemReserved, 'cpu', 'systemReserved', true),
    memoryBytes:
      reservedAmount(input.kubeReserved, 'memory', 'kubeReserved', false) +
      reservedAmount(input.systemReserved, 'memory', 'systemReserved', false),
  };
  const pidReserved =
    reservedAmount(input.kubeReserved, 'pid', 'kubeReserved', false) + reservedAmount(input.systemReserved, 'pid', 'systemReserved', false);
  if (pidReserved > 0) reserved.pids = pidReserved;
  const evictionMemoryBytes = evictionMemoryReservation(input.evictionHard, capacity.memoryBytes);
  const sub = (a: number, b: number): number => Math.max(0, a - b);
  const enforced: NodeResources = {
    cpuMilli: sub(capacity.cpuMilli, reserved.cpuMilli),
    memoryBytes: sub(capacity.memoryBytes, reserved.memoryBytes),
  };
  if (reserved.pids !== undefined && capacity.pids !== undefined) enforced.pids = sub(capacity.pids, reserved.pids);
  const allocatable: NodeResources = { ...enforced, memoryBytes: sub(enforced.memoryBytes, evictionMemoryBytes) };
  return { capacity, reserved, evictionMemoryBytes, allocatable, enforced };
}

/** Parses a cpu list (`0-3,6`) into a count. */
export function countCpuList(text: string): number {
  let n = 0;
  for (const part of text.trim().split(',')) {
    if (part === '') continue;
    const [a, b] = part.split('-').map(Number);
    if (a === undefined || !Number.isInteger(a)) continue;
    n += b !== undefined && Number.isInteger(b) ? b - a + 1 : 1;
  }
  return n;
}

/**
 * The machine's capacity (upstream cadvisor MachineInfo): online cpus from
 * `/sys/devices/system/cpu/online`, MemTotal from `/proc/meminfo`, pid_max from
 * `/proc/sys/kernel/pid_max`, under `fsRoot`.
 */
export async function readMachineCapacity(fsRoot = '/'): Promise<NodeResources> {
  const root = fsRoot.replace(/\/+$/, '');
  const meminfo = await readFile(`${root}/proc/meminfo`, 'utf8').catch((err: unknown) => {
    throw CgroupError.from(err, 'IO', `cannot read ${root}/proc/meminfo`);
  });
  const match = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo);
  if (match?.[1] === undefined) throw new CgroupError('IO', `no MemTotal in ${root}/proc/meminfo`);
  const online = await readFile(`${root}/sys/devices/system/cpu/online`, 'utf8').catch(() => '');
  const cpus = countCpuList(online) || availableParallelism();
  const pidMax = Number((await readFile(`${root}/proc/sys/kernel/pid_max`, 'utf8').catch(() => '')).trim());
  return {
    cpuMilli: cpus * 1000,
    memoryBytes: Number(match[1]) * 1024,
    ...(Number.isInteger(pidMax) && pidMax > 0 ? { pids: pidMax } : {}),
  };
}
