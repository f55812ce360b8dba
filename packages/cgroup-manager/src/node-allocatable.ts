import { availableParallelism } from 'node:os';
import { readFile, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { NodeResources, Quantity } from '@kubelet-ts/api';
import { quantityMilliValue, quantityValue } from '@kubelet-ts/api';
import { CgroupError } from './errors.js';

export interface NodeAllocatableInput {
  capacity: NodeResources;
  /** `kubeReserved` / `systemReserved` maps (cpu, memory, ephemeral-storage, pid). */
  kubeReserved?: Record<string, Quantity>;
  systemReserved?: Record<string, Quantity>;
  /** `evictionHard`; `memory.available` and `nodefs.available` count (quantities or percentages of the capacity). */
  evictionHard?: Record<string, string>;
}

export interface NodeAllocatable {
  capacity: NodeResources;
  /** kubeReserved + systemReserved. */
  reserved: NodeResources;
  /** The hard eviction threshold reserved for memory.available. */
  evictionMemoryBytes: number;
  /** The hard eviction threshold reserved for nodefs.available (0 without an ephemeral-storage capacity). */
  evictionEphemeralStorageBytes: number;
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

/** Parses the threshold of `signal` in evictionHard into bytes (a percentage is of `capacity`); 0 when unset. */
function evictionReservation(evictionHard: Record<string, string> | undefined, signal: string, capacity: number): number {
  const value = evictionHard?.[signal];
  if (value === undefined || value === '') return 0;
  if (value.endsWith('%')) {
    const pct = Number(value.slice(0, -1));
    if (!Number.isFinite(pct) || pct < 0 || pct > 100)
      throw new CgroupError('INVALID_CONFIG', `evictionHard.${signal}: invalid percentage ${JSON.stringify(value)}`);
    // Upstream ParsePercentage keeps a float32 (1% is 0.0099999998) and truncates capacity × it.
    return Math.trunc(capacity * Math.fround(Math.fround(pct) / 100));
  }
  try {
    return quantityValue(value);
  } catch (err) {
    throw new CgroupError('INVALID_CONFIG', `evictionHard.${signal}: ${JSON.stringify(value)} is not a valid quantity`, { cause: err });
  }
}

/** Parses `memory.available` of evictionHard into bytes (percentages of the memory capacity). */
export function evictionMemoryReservation(evictionHard: Record<string, string> | undefined, memoryCapacity: number): number {
  return evictionReservation(evictionHard, 'memory.available', memoryCapacity);
}

/**
 * Upstream GetNodeAllocatableReservation / getNodeAllocatableAbsolute for cpu, memory, pids and,
 * when the capacity has it, ephemeral storage (advertised, never enforced on a cgroup).
 */
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
  let evictionEphemeralStorageBytes = 0;
  if (capacity.ephemeralStorageBytes !== undefined) {
    const storage = capacity.ephemeralStorageBytes;
    reserved.ephemeralStorageBytes =
      reservedAmount(input.kubeReserved, 'ephemeral-storage', 'kubeReserved', false) +
      reservedAmount(input.systemReserved, 'ephemeral-storage', 'systemReserved', false);
    evictionEphemeralStorageBytes = evictionReservation(input.evictionHard, 'nodefs.available', storage);
    allocatable.ephemeralStorageBytes = sub(storage, reserved.ephemeralStorageBytes + evictionEphemeralStorageBytes);
  }
  return { capacity, reserved, evictionMemoryBytes, evictionEphemeralStorageBytes, allocatable, enforced };
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
export async function readMachineCapacity(fsRoot = '/', options: { ephemeralStoragePath?: string } = {}): Promise<NodeResources> {
  const root = fsRoot.replace(/\/+$/, '');
  const meminfo = await readFile(`${root}/proc/meminfo`, 'utf8').catch((err: unknown) => {
    throw CgroupError.from(err, 'IO', `cannot read ${root}/proc/meminfo`);
  });
  const match = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo);
  if (match?.[1] === undefined) throw new CgroupError('IO', `no MemTotal in ${root}/proc/meminfo`);
  const online = await readFile(`${root}/sys/devices/system/cpu/online`, 'utf8').catch(() => '');
  const cpus = countCpuList(online) || availableParallelism();
  const pidMax = Number((await readFile(`${root}/proc/sys/kernel/pid_max`, 'utf8').catch(() => '')).trim());
  const ephemeralStorageBytes = options.ephemeralStoragePath !== undefined ? await filesystemSize(options.ephemeralStoragePath) : undefined;
  return {
    cpuMilli: cpus * 1000,
    memoryBytes: Number(match[1]) * 1024,
    ...(ephemeralStorageBytes !== undefined ? { ephemeralStorageBytes } : {}),
    ...(Number.isInteger(pidMax) && pidMax > 0 ? { pids: pidMax } : {}),
  };
}

/**
 * The size of the filesystem that holds `path` (cadvisor's fs Capacity: blocks × block size); a
 * path not made yet (a fresh root dir) is measured at its nearest existing parent.
 */
async function filesystemSize(path: string): Promise<number> {
  for (let at = path; ; at = dirname(at)) {
    try {
      const fs = await statfs(at);
      return fs.blocks * fs.bsize;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) {
        throw CgroupError.from(err, 'IO', `cannot statfs ${path} for the ephemeral-storage capacity`);
      }
    }
  }
}
