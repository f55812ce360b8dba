import type { CpuInfo, CpuTopology } from './topology.js';

/**
 * Picks `count` CPUs out of `available` the way upstream's static policy packs them (a
 * simplified cpuAccumulator): whole free sockets first, then whole free cores, then single
 * threads — cores and sockets with the fewest free CPUs first, so that allocations stay packed and
 * whole cores stay free for later requests. Returns undefined when there are not enough.
 */
export function takeByTopology(topology: CpuTopology, available: readonly number[], count: number): number[] | undefined {
  const free = new Set(available);
  if (count > free.size) return undefined;
  const cpus = topology.cpus.filter((c) => free.has(c.id));
  const taken: number[] = [];
  const take = (list: readonly CpuInfo[]): void => {
    for (const c of list) {
      free.delete(c.id);
      taken.push(c.id);
    }
  };
  const bySocket = groupBy(topology.cpus, (c) => `${c.socket}`);
  const byCore = groupBy(topology.cpus, (c) => `${c.socket}/${c.core}`);
  const freeIn = (group: readonly CpuInfo[]): number => group.filter((c) => free.has(c.id)).length;

  for (const socket of [...bySocket.values()].sort((a, b) => a[0]!.socket - b[0]!.socket)) {
    if (count - taken.length >= socket.length && freeIn(socket) === socket.length) take(socket);
  }
  const wholeCores = (): CpuInfo[][] =>
    [...byCore.values()]
      .filter((core) => freeIn(core) === core.length)
      .sort(
        (a, b) =>
          freeIn(bySocket.get(`${a[0]!.socket}`)!) - freeIn(bySocket.get(`${b[0]!.socket}`)!) ||
          a[0]!.socket - b[0]!.socket ||
          a[0]!.core - b[0]!.core,
      );
  for (let cores = wholeCores(); cores.length > 0 && count - taken.length >= cores[0]!.length; cores = wholeCores()) take(cores[0]!);
  while (taken.length < count) {
    const next = cpus
      .filter((c) => free.has(c.id))
      .sort(
        (a, b) =>
          freeIn(byCore.get(`${a.socket}/${a.core}`)!) - freeIn(byCore.get(`${b.socket}/${b.core}`)!) ||
          freeIn(bySocket.get(`${a.socket}`)!) - freeIn(bySocket.get(`${b.socket}`)!) ||
          a.id - b.id,
      )[0];
    if (next === undefined) return undefined;
    take([next]);
  }
  return taken.sort((a, b) => a - b);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    out.set(k, [...(out.get(k) ?? []), item]);
  }
  return out;
}
