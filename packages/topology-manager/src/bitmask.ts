import { forEachSubset } from '@kubelet-ts/common';

/**
 * NUMA node sets as bit masks (upstream topologymanager/bitmask, at most 64 nodes; the manager
 * refuses more than 8 as upstream does): bit n is NUMA node n.
 */
export type NumaMask = number;

export function maskOf(nodes: readonly number[]): NumaMask {
  return nodes.reduce((mask, node) => mask | (1 << node), 0);
}

export function nodesOf(mask: NumaMask): number[] {
  const nodes: number[] = [];
  for (let node = 0; node < 31; node += 1) if ((mask & (1 << node)) !== 0) nodes.push(node);
  return nodes;
}

export function countOf(mask: NumaMask): number {
  return nodesOf(mask).length;
}

/** Fewer nodes, or as many and lower-numbered ones (upstream IsNarrowerThan / IsLessThan). */
export function isNarrowerThan(a: NumaMask, b: NumaMask): boolean {
  return countOf(a) === countOf(b) ? a < b : countOf(a) < countOf(b);
}

/** Every non-empty subset of `nodes` as a mask, smallest first (upstream IterateBitMasks). */
export function everyMask(nodes: readonly number[], visit: (mask: NumaMask) => void): void {
  forEachSubset(nodes, (subset) => visit(maskOf(subset)));
}
