import type { MetricFamily, Sample } from '../types.js';

/** An RFC 3339 time of the Summary API in milliseconds, or undefined when it does not parse. */
export const timeMs = (time: string): number | undefined => {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? undefined : ms;
};

/** The sample timestamp of a figure measured at `time` (upstream NewLazyMetricWithTimestamp). */
export const stamp = (time: string): { timestampMs?: number } => {
  const ms = timeMs(time);
  return ms === undefined ? {} : { timestampMs: ms };
};

/** Families sorted by name, as upstream's Gather answers; empty ones left out. */
export function sortedFamilies(families: Iterable<MetricFamily>): MetricFamily[] {
  return [...families].filter((f) => f.samples.length > 0).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export interface FamilyTable<N extends string> {
  add(name: N, sample: Sample): void;
  families(): MetricFamily[];
}

/** The families a collector declares (upstream Describe), which its samples are added to. */
export function familyTable<N extends string>(defs: Record<N, Omit<MetricFamily, 'name' | 'samples'>>): FamilyTable<N> {
  const table = new Map<N, MetricFamily>();
  for (const name of Object.keys(defs) as N[]) table.set(name, { name, ...defs[name], samples: [] });
  return {
    add: (name, sample) => table.get(name)?.samples.push(sample),
    families: () => sortedFamilies(table.values()),
  };
}
