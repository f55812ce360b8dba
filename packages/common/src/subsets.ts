/**
 * Visits every non-empty subset of `items`, smallest first, each in `items`' order (upstream's
 * bitmask.IterateBitMasks, which the topology manager and the CPU manager's hints walk NUMA nodes with).
 */
export function forEachSubset<T>(items: readonly T[], visit: (subset: T[]) => void): void {
  const pick = (size: number, start: number, chosen: T[]): void => {
    if (size === 0) {
      visit(chosen);
      return;
    }
    for (let i = start; i <= items.length - size; i += 1) pick(size - 1, i + 1, [...chosen, items[i]!]);
  };
  for (let size = 1; size <= items.length; size += 1) pick(size, 0, []);
}
