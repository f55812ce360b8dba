import type { Quantity } from '@kubelet-ts/api';
import { parseQuantity } from '@kubelet-ts/api';
import { MemoryManagerError } from './errors.js';
import type { GoQuantity } from './internal/go-quantity.js';
import { addGoQuantity, formatGoQuantity, goQuantity } from './internal/go-quantity.js';
import { hugePageResourceName } from './topology.js';
import type { MemoryTopology } from './topology.js';

/** One entry of `reservedMemory`: memory (and huge pages) the system keeps on a NUMA node. */
export interface MemoryReservation {
  numaNode: number;
  /** `memory` and `hugepages-<size>` → quantity. */
  limits: Readonly<Record<string, Quantity>>;
}

/** Per NUMA node, per resource: the reserved bytes (upstream systemReservedMemory). */
export type SystemReservedMemory = ReadonlyMap<number, ReadonlyMap<string, number>>;

const ZERO: GoQuantity = { value: 0n, format: 'DecimalSI' };
const isMemoryResource = (name: string): boolean => name === 'memory' || name.startsWith('hugepages-');

export interface NodeAllocatableReservationInput {
  systemReserved?: Readonly<Record<string, Quantity>>;
  kubeReserved?: Readonly<Record<string, Quantity>>;
  /** `evictionHard`: its `memory.available` counts (a quantity, or a percentage of the memory capacity). */
  evictionHard?: Readonly<Record<string, string>>;
  /** The machine's memory, for a percentage threshold. */
  memoryCapacityBytes: number;
  /** The huge page sizes of the machine: their reservations count too. */
  topology: MemoryTopology;
}

/**
 * Upstream GetNodeAllocatableReservation for the memory resources: system- plus kube-reserved plus
 * the hard eviction threshold of memory.available, as Go quantities print (`1124Mi`), zero ones left out.
 */
export function nodeAllocatableReservation(input: NodeAllocatableReservationInput): Record<string, string> {
  const names = new Set(['memory']);
  for (const node of input.topology.nodes) for (const hp of node.hugePages) names.add(hugePageResourceName(hp.pageSizeKiB));
  const out: Record<string, string> = {};
  for (const name of [...names].sort()) {
    let sum = ZERO;
    for (const list of [input.systemReserved, input.kubeReserved]) {
      const q = list?.[name];
      if (q !== undefined) sum = addGoQuantity(sum, goQuantity(q));
    }
    if (name === 'memory') {
      const eviction = evictionQuantity(input.evictionHard?.['memory.available'], input.memoryCapacityBytes);
      if (eviction !== undefined) sum = addGoQuantity(sum, eviction);
    }
    if (sum.value !== 0n) out[name] = formatGoQuantity(sum);
  }
  return out;
}

// Upstream GetThresholdQuantity: a quantity as written; a percentage (float32, as ParsePercentage keeps it) of the capacity, BinarySI.
function evictionQuantity(value: string | undefined, capacity: number): GoQuantity | undefined {
  if (value === undefined || value === '') return undefined;
  if (value.endsWith('%')) {
    const pct = Math.fround(Math.fround(Number(value.slice(0, -1))) / 100);
    return { value: BigInt(Math.trunc(capacity * pct)), format: 'BinarySI' };
  }
  return goQuantity(value);
}

/**
 * Upstream validateReservedMemory: every NUMA node named exists, and per memory resource the sum of
 * `reservedMemory` equals what node allocatable reserves (kube- plus system-reserved plus hard eviction).
 * Throws MemoryManagerError INVALID_CONFIGURATION with upstream's message.
 */
export function validateReservedMemory(
  topology: MemoryTopology,
  reservation: Readonly<Record<string, Quantity>>,
  reservedMemory: readonly MemoryReservation[],
): void {
  const nodes = new Set(topology.nodes.map((n) => n.id));
  const totals = new Map<string, GoQuantity>();
  for (const r of reservedMemory) {
    if (!nodes.has(r.numaNode)) {
      throw new MemoryManagerError(
        'INVALID_CONFIGURATION',
        `the reserved memory configuration references a NUMA node ${r.numaNode} that does not exist on this machine`,
      );
    }
    // Upstream adds the running total to this entry's quantity: the sum prints in the format of the last one.
    for (const [name, q] of Object.entries(r.limits)) {
      const previous = totals.get(name);
      totals.set(name, previous === undefined ? goQuantity(q) : addGoQuantity(goQuantity(q), previous));
    }
  }
  const names = new Set([...totals.keys(), ...Object.keys(reservation).filter(isMemoryResource)]);
  for (const name of [...names].sort()) {
    const allocatable = reservation[name] === undefined ? ZERO : addGoQuantity(ZERO, goQuantity(reservation[name]));
    const reserved = addGoQuantity(ZERO, totals.get(name) ?? ZERO);
    if (allocatable.value !== reserved.value) {
      throw new MemoryManagerError(
        'INVALID_CONFIGURATION',
        `the total amount ${JSON.stringify(formatGoQuantity(reserved))} of type ${JSON.stringify(name)} is not equal to the value ${JSON.stringify(formatGoQuantity(allocatable))} determined by Node Allocatable feature`,
      );
    }
  }
}

/** Upstream convertReserved: per NUMA node of the machine, per resource, the reserved bytes (a later entry wins). */
export function convertReservedMemory(topology: MemoryTopology, reservedMemory: readonly MemoryReservation[]): SystemReservedMemory {
  const out = new Map<number, Map<string, number>>(topology.nodes.map((n) => [n.id, new Map()]));
  for (const r of reservedMemory) {
    for (const [name, q] of Object.entries(r.limits)) {
      const bytes = parseQuantity(q);
      if (!Number.isInteger(bytes))
        throw new MemoryManagerError('INVALID_CONFIGURATION', 'could not covert a variable of type Quantity to int64');
      const node = out.get(r.numaNode) ?? new Map<string, number>();
      node.set(name, bytes);
      out.set(r.numaNode, node);
    }
  }
  return out;
}
