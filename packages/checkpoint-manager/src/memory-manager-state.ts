import type { GoValue } from '@kubelet-ts/common';
import { goChecksum } from './checksum.js';
import { CheckpointError } from './errors.js';
import { go, goJsonMap, isRecord, withChecksum } from './internal/go-values.js';

/** The memory manager's checkpoint file in the root dir (upstream memoryManagerStateFileName). */
export const MEMORY_MANAGER_STATE_FILE = 'memory_manager_state';

/** One resource's memory on one NUMA node, in bytes (upstream state.MemoryTable). */
export interface MemoryTable {
  total: number;
  systemReserved: number;
  allocatable: number;
  reserved: number;
  free: number;
}

/** Upstream state.NUMANodeState. */
export interface NumaNodeState {
  numberOfAssignments: number;
  /** resource name (`memory`, `hugepages-2Mi`…) → table. */
  memoryMap: Record<string, MemoryTable | null>;
  /** The NUMA nodes grouped with this one for multi-node allocations. */
  cells: number[] | null;
}

/** One container's memory on a set of NUMA nodes (upstream state.Block). */
export interface MemoryBlock {
  numaAffinity: number[] | null;
  type: string;
  size: number;
}

/** What the memory manager keeps across restarts (upstream state.MemoryManagerCheckpoint). */
export interface MemoryManagerState {
  /** `None` or `Static`. */
  policyName: string;
  /** NUMA node ID → its state; empty for the None policy. */
  machineState: Record<string, NumaNodeState | null>;
  /** pod UID → container name → its blocks. */
  entries: Record<string, Record<string, MemoryBlock[]>>;
}

/** The file's bytes exactly as the upstream kubelet writes them (json.Marshal with its checksum). */
export function encodeMemoryManagerState(state: MemoryManagerState): Buffer {
  const ints = (list: number[] | null): string => (list === null ? 'null' : JSON.stringify(list));
  const table = (t: MemoryTable | null): string =>
    t === null
      ? 'null'
      : `{"total":${t.total},"systemReserved":${t.systemReserved},"allocatable":${t.allocatable},"reserved":${t.reserved},"free":${t.free}}`;
  const node = (n: NumaNodeState | null): string =>
    n === null
      ? 'null'
      : `{"numberOfAssignments":${n.numberOfAssignments},"memoryMap":${goJsonMap(n.memoryMap, table)},"cells":${ints(n.cells)}}`;
  const block = (b: MemoryBlock): string => `{"numaAffinity":${ints(b.numaAffinity)},"type":${JSON.stringify(b.type)},"size":${b.size}}`;
  const entries =
    Object.keys(state.entries).length === 0
      ? ''
      : `,"entries":${goJsonMap(state.entries, (c) => goJsonMap(c, (blocks) => `[${blocks.map(block).join(',')}]`))}`;
  // encoding/json writes integer map keys as strings, sorted as strings ("0", "10", "2").
  const json = `{"policyName":${JSON.stringify(state.policyName)},"machineState":${goJsonMap(state.machineState, node)}${entries}}`;
  return Buffer.from(withChecksum(json, goChecksum(checkpointValue(state))), 'utf8');
}

/** Reads and checks a checkpoint; a non-zero checksum that does not match is CORRUPT. */
export function decodeMemoryManagerState(data: Uint8Array, source: string): MemoryManagerState {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (err) {
    throw new CheckpointError('INVALID', `${source}: not JSON`, { cause: err });
  }
  if (!isRecord(raw) || (raw.policyName !== undefined && typeof raw.policyName !== 'string')) {
    throw new CheckpointError('INVALID', `${source}: not a memory manager checkpoint`);
  }
  const machineState = raw.machineState ?? {};
  const entries = raw.entries ?? {};
  if (!isRecord(machineState) || !isRecord(entries))
    throw new CheckpointError('INVALID', `${source}: machineState and entries must be objects`);
  const state: MemoryManagerState = {
    policyName: (raw.policyName as string | undefined) ?? '',
    machineState: machineState as MemoryManagerState['machineState'],
    entries: entries as MemoryManagerState['entries'],
  };
  const checksum = raw.checksum ?? 0;
  if (checksum !== 0 && checksum !== goChecksum(checkpointValue(state))) throw new CheckpointError('CORRUPT', 'checkpoint is corrupted');
  return state;
}

const u64 = (n: number): GoValue => go.number(n, 'uint64');
const intList = (list: number[] | null | undefined): GoValue =>
  go.slice('[]int', list === null || list === undefined ? null : list.map((n) => go.number(n, 'int')));

// (*state.MemoryManagerCheckpoint){PolicyName MachineState Entries Checksum:0}: what upstream hashes.
function checkpointValue(state: MemoryManagerState): GoValue {
  const table = (t: MemoryTable | null): GoValue =>
    go.pointer(
      '*state.MemoryTable',
      t === null
        ? undefined
        : go.struct('state.MemoryTable', [
            ['TotalMemSize', u64(t.total)],
            ['SystemReserved', u64(t.systemReserved)],
            ['Allocatable', u64(t.allocatable)],
            ['Reserved', u64(t.reserved)],
            ['Free', u64(t.free)],
          ]),
    );
  const node = (n: NumaNodeState | null): GoValue =>
    go.pointer(
      '*state.NUMANodeState',
      n === null
        ? undefined
        : go.struct('state.NUMANodeState', [
            ['NumberOfAssignments', go.number(n.numberOfAssignments, 'int')],
            [
              'MemoryMap',
              go.map(
                'map[v1.ResourceName]*state.MemoryTable',
                Object.entries(n.memoryMap ?? {}).map(([r, t]) => [go.string(r, 'v1.ResourceName'), table(t)] as const),
              ),
            ],
            ['Cells', intList(n.cells)],
          ]),
    );
  const block = (b: MemoryBlock): GoValue =>
    go.struct('state.Block', [
      ['NUMAAffinity', intList(b.numaAffinity)],
      ['Type', go.string(b.type, 'v1.ResourceName')],
      ['Size', u64(b.size)],
    ]);
  const containers = (c: Record<string, MemoryBlock[]>): GoValue =>
    go.map(
      'map[string][]state.Block',
      Object.entries(c).map(([name, blocks]) => [go.string(name), go.slice('[]state.Block', blocks.map(block))] as const),
    );
  return go.pointer(
    '*state.MemoryManagerCheckpoint',
    go.struct('state.MemoryManagerCheckpoint', [
      ['PolicyName', go.string(state.policyName)],
      [
        'MachineState',
        go.map(
          'state.NUMANodeMap',
          Object.entries(state.machineState).map(([id, n]) => [go.number(Number(id), 'int'), node(n)] as const),
        ),
      ],
      [
        'Entries',
        go.map(
          'state.ContainerMemoryAssignments',
          Object.entries(state.entries).map(([uid, c]) => [go.string(uid), containers(c)] as const),
        ),
      ],
      ['Checksum', go.number(0, 'checksum.Checksum')],
    ]),
  );
}
