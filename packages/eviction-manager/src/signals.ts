import type { Summary } from '@kubelet-ts/stats';
import type { EvictionSignal } from './constants.js';
import type { EvictionThreshold } from './thresholds.js';
import { thresholdQuantity } from './thresholds.js';

/** What one signal shows now (upstream signalObservation). */
export interface SignalObservation {
  available: number;
  capacity: number;
  /** RFC 3339 time of the underlying stat. */
  time: string;
}

export type SignalObservations = Partial<Record<EvictionSignal, SignalObservation>>;

/**
 * Upstream makeSignalObservations: memory.available = node memory availableBytes (capacity =
 * available + working set); nodefs from node.fs; imagefs from node.runtime.imageFs; containerfs
 * from node.runtime.containerFs (imagefs when absent); allocatableMemory from the `pods` system
 * container; pid.available = maxpid − curproc.
 */
export function makeSignalObservations(summary: Summary): SignalObservations {
  const out: SignalObservations = {};
  const node = summary.node;
  const mem = node.memory;
  if (mem?.availableBytes !== undefined && mem.workingSetBytes !== undefined) {
    out['memory.available'] = { available: mem.availableBytes, capacity: mem.availableBytes + mem.workingSetBytes, time: mem.time };
  }
  const pods = node.systemContainers?.find((c) => c.name === 'pods')?.memory;
  if (pods?.availableBytes !== undefined && pods.workingSetBytes !== undefined) {
    out['allocatableMemory.available'] = {
      available: pods.availableBytes,
      capacity: pods.availableBytes + pods.workingSetBytes,
      time: pods.time,
    };
  }
  const fsSignals = (fs: typeof node.fs, bytes: EvictionSignal, inodes: EvictionSignal): void => {
    if (fs === undefined) return;
    if (fs.availableBytes !== undefined && fs.capacityBytes !== undefined)
      out[bytes] = { available: fs.availableBytes, capacity: fs.capacityBytes, time: fs.time };
    if (fs.inodesFree !== undefined && fs.inodes !== undefined)
      out[inodes] = { available: fs.inodesFree, capacity: fs.inodes, time: fs.time };
  };
  fsSignals(node.fs, 'nodefs.available', 'nodefs.inodesFree');
  fsSignals(node.runtime?.imageFs, 'imagefs.available', 'imagefs.inodesFree');
  fsSignals(node.runtime?.containerFs ?? node.runtime?.imageFs, 'containerfs.available', 'containerfs.inodesFree');
  const rlimit = node.rlimit;
  if (rlimit?.maxpid !== undefined && rlimit.curproc !== undefined) {
    out['pid.available'] = { available: rlimit.maxpid - rlimit.curproc, capacity: rlimit.maxpid, time: rlimit.time };
  }
  return out;
}

/**
 * Upstream thresholdsMet: the thresholds whose signal is below the threshold quantity (plus the
 * minimum reclaim when `enforceMinReclaim`). Thresholds without an observation are not met.
 */
export function thresholdsMet(
  thresholds: readonly EvictionThreshold[],
  observations: SignalObservations,
  enforceMinReclaim: boolean,
): EvictionThreshold[] {
  return thresholds.filter((t) => {
    const observed = observations[t.signal];
    if (observed === undefined) return false;
    let quantity = thresholdQuantity(t.value, observed.capacity);
    if (enforceMinReclaim && t.minReclaim !== undefined) quantity += thresholdQuantity(t.minReclaim, observed.capacity);
    return quantity > observed.available;
  });
}
