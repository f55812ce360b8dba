import type { NumaMask } from './bitmask.js';
import { countOf, isNarrowerThan, maskOf } from './bitmask.js';
import type { ResourceHints, TopologyHint, TopologyManagerPolicy } from './types.js';

/** A hint with its nodes as a mask; `mask` null is "any". */
interface MaskHint {
  mask: NumaMask | null;
  preferred: boolean;
}

/**
 * Upstream policy Merge: every provider's hints per resource, crossed, each combination ANDed
 * over the default affinity, the best kept (preferred first, then the narrowest; non-preferred
 * ones ranked against the widest of the narrowest per resource). Returns the best hint (nodes
 * null when it is every node under single-numa-node, as upstream) and whether to admit.
 */
export function mergeHints(
  policy: Exclude<TopologyManagerPolicy, 'none'>,
  numaNodes: readonly number[],
  providersHints: readonly ResourceHints[],
): { hint: TopologyHint; admit: boolean } {
  const defaultMask = maskOf(numaNodes);
  let filtered = filterProvidersHints(providersHints);
  if (policy === 'single-numa-node')
    filtered = filtered.map((hints) => hints.filter((h) => h.preferred && (h.mask === null || countOf(h.mask) === 1)));
  const bestNonPreferredCount = Math.max(
    0,
    ...filtered
      .map((hints) => narrowest(hints))
      .filter((m): m is NumaMask => m !== undefined)
      .map(countOf),
  );
  let best: MaskHint | undefined;
  const visit = (i: number, accum: MaskHint[]): void => {
    if (i === filtered.length) {
      best = compare(best, mergePermutation(defaultMask, accum), bestNonPreferredCount);
      return;
    }
    for (const hint of filtered[i]!) visit(i + 1, [...accum, hint]);
  };
  visit(0, []);
  let result: MaskHint = best ?? { mask: defaultMask, preferred: false };
  if (policy === 'single-numa-node' && result.mask === defaultMask) result = { mask: null, preferred: result.preferred };
  const hint = {
    numaNodes: result.mask === null ? null : numaNodes.filter((n) => (result.mask! & (1 << n)) !== 0),
    preferred: result.preferred,
  };
  return { hint, admit: policy === 'best-effort' ? true : result.preferred };
}

function filterProvidersHints(providersHints: readonly ResourceHints[]): MaskHint[][] {
  const out: MaskHint[][] = [];
  for (const hints of providersHints) {
    const resources = Object.keys(hints);
    if (resources.length === 0) {
      out.push([{ mask: null, preferred: true }]);
      continue;
    }
    for (const resource of resources) {
      const list = hints[resource];
      if (list === null || list === undefined) out.push([{ mask: null, preferred: true }]);
      else if (list.length === 0) out.push([{ mask: null, preferred: false }]);
      else out.push(list.map((h) => ({ mask: h.numaNodes === null ? null : maskOf(h.numaNodes), preferred: h.preferred })));
    }
  }
  return out;
}

function mergePermutation(defaultMask: NumaMask, permutation: readonly MaskHint[]): MaskHint {
  let preferred = true;
  let mask = defaultMask;
  let first: NumaMask | undefined;
  for (const hint of permutation) {
    if (hint.mask !== null) {
      first ??= hint.mask;
      if (hint.mask !== first) preferred = false;
      mask &= hint.mask;
    }
    if (!hint.preferred) preferred = false;
  }
  return { mask, preferred };
}

function narrowest(hints: readonly MaskHint[]): NumaMask | undefined {
  let best: NumaMask | undefined;
  for (const h of hints) if (h.mask !== null && (best === undefined || isNarrowerThan(h.mask, best))) best = h.mask;
  return best;
}

const narrower = (current: MaskHint, candidate: MaskHint): MaskHint =>
  candidate.mask === current.mask ? current : isNarrowerThan(current.mask!, candidate.mask!) ? current : candidate;

// Upstream HintMerger.compare.
function compare(current: MaskHint | undefined, candidate: MaskHint, bestNonPreferred: number): MaskHint | undefined {
  if (candidate.mask === null || countOf(candidate.mask) === 0) return current;
  if (current === undefined) return candidate;
  if (!current.preferred && candidate.preferred) return candidate;
  if (current.preferred && !candidate.preferred) return current;
  if (current.preferred && candidate.preferred) return narrower(current, candidate);
  const cur = countOf(current.mask!);
  const cand = countOf(candidate.mask);
  if (cur > bestNonPreferred) return narrower(current, candidate);
  if (cur === bestNonPreferred) return cand !== bestNonPreferred ? current : narrower(current, candidate);
  if (cand > bestNonPreferred) return current;
  if (cand === bestNonPreferred) return candidate;
  if (cand > cur) return candidate;
  if (cand < cur) return current;
  return narrower(current, candidate);
}
