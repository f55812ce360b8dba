import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatGoQuantity } from './internal/go-quantity.js';

/** Pre-allocated huge pages of one size on one NUMA node (cAdvisor HugePagesInfo). */
export interface HugePagesInfo {
  /** The page size in KiB (`hugepages-2048kB` → 2048). */
  pageSizeKiB: number;
  numPages: number;
}

/** One NUMA node's memory (the part of cAdvisor's info.Node the memory manager reads). */
export interface MemoryNumaNode {
  id: number;
  /** `MemTotal` of the node's meminfo, in bytes. */
  memoryBytes: number;
  hugePages: readonly HugePagesInfo[];
}

/** The machine's NUMA nodes and their memory (cAdvisor MachineInfo.Topology). */
export interface MemoryTopology {
  nodes: readonly MemoryNumaNode[];
}

export interface ReadMemoryTopologyOptions {
  /** Default `/sys/devices/system`. */
  sysfs?: string;
  readFile?: (path: string) => Promise<string>;
  readdir?: (path: string) => Promise<string[]>;
}

/** The resource name of a huge page size (upstream HugePageResourceName): 2048 KiB → `hugepages-2Mi`. */
export function hugePageResourceName(pageSizeKiB: number): string {
  return `hugepages-${formatGoQuantity({ value: BigInt(pageSizeKiB) * 1024n, format: 'BinarySI' })}`;
}

/**
 * Reads the NUMA nodes as cAdvisor's GetNodesInfo does: `node/node<N>/meminfo` (`MemTotal`, a node
 * without one has 0) and `node/node<N>/hugepages/hugepages-<size>kB/nr_hugepages`. Without NUMA
 * nodes in sysfs, cAdvisor makes one node per CPU package, with no memory.
 */
export async function readMemoryTopology(options: ReadMemoryTopologyOptions = {}): Promise<MemoryTopology> {
  const sysfs = options.sysfs ?? '/sys/devices/system';
  const read = options.readFile ?? ((path: string) => readFile(path, 'utf8'));
  const list = options.readdir ?? ((path: string) => readdir(path));
  const nodeDir = join(sysfs, 'node');
  const ids = (await list(nodeDir).catch(() => []))
    .map((name) => /^node([0-9]+)$/.exec(name)?.[1])
    .filter((id): id is string => id !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
  if (ids.length === 0) return { nodes: (await cpuPackages(sysfs, read, list)).map((id) => ({ id, memoryBytes: 0, hugePages: [] })) };
  const nodes: MemoryNumaNode[] = [];
  for (const id of ids) {
    const dir = join(nodeDir, `node${id}`);
    const meminfo = await read(join(dir, 'meminfo')).catch(() => undefined);
    const total = meminfo === undefined ? undefined : /MemTotal:\s*([0-9]+) kB/.exec(meminfo)?.[1];
    if (meminfo !== undefined && total === undefined) throw new Error(`failed to match regexp in output: ${JSON.stringify(meminfo)}`);
    const hugePages: HugePagesInfo[] = [];
    for (const name of (await list(join(dir, 'hugepages')).catch(() => [])).sort()) {
      const size = /^hugepages-([0-9]+)kB$/.exec(name)?.[1];
      if (size === undefined) continue;
      const nr = (await read(join(dir, 'hugepages', name, 'nr_hugepages'))).trim();
      if (!/^[0-9]+/.test(nr)) throw new Error(`could not parse file nr_hugepage for ${name}, contents ${JSON.stringify(nr)}`);
      hugePages.push({ pageSizeKiB: Number(size), numPages: Number.parseInt(nr, 10) });
    }
    nodes.push({ id, memoryBytes: total === undefined ? 0 : Number(total) * 1024, hugePages });
  }
  return { nodes };
}

async function cpuPackages(
  sysfs: string,
  read: (path: string) => Promise<string>,
  list: (path: string) => Promise<string[]>,
): Promise<number[]> {
  const packages = new Set<number>();
  for (const name of await list(join(sysfs, 'cpu')).catch(() => [])) {
    if (!/^cpu[0-9]+$/.test(name)) continue;
    const id = await read(join(sysfs, 'cpu', name, 'topology', 'physical_package_id')).catch(() => undefined);
    if (id !== undefined && /^[0-9]+$/.test(id.trim())) packages.add(Number(id.trim()));
  }
  return [...packages].sort((a, b) => a - b);
}
