import { CpuManagerError } from './errors.js';

/**
 * Linux cpuset list syntax (upstream k8s.io/utils/cpuset): `0-3,7`. Parsing sorts and
 * de-duplicates; formatting writes ranges of consecutive CPUs, ascending, as upstream's String().
 */
export function parseCpuSet(text: string): number[] {
  const out = new Set<number>();
  if (text.trim() === '') return [];
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (m === null) throw new CpuManagerError('INVALID_CPUSET', `invalid cpuset ${JSON.stringify(text)}`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new CpuManagerError('INVALID_CPUSET', `invalid cpuset ${JSON.stringify(text)}: range ${part.trim()} is reversed`);
    for (let cpu = from; cpu <= to; cpu += 1) out.add(cpu);
  }
  return [...out].sort((a, b) => a - b);
}

export function formatCpuSet(cpus: Iterable<number>): string {
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j += 1;
    ranges.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return ranges.join(',');
}
