import type { Container, Pod } from '@kubelet-ts/api';
import type { ContainerStats, FsStats, PodStats } from '@kubelet-ts/stats';
import { formatBinaryQuantity, quantityOrZero } from './quantity.js';

/** Which parts of a pod's storage a disk signal measures (upstream fsStatsType). */
export type FsStatsType = 'root' | 'logs' | 'localVolumeSource';

/** The raw request text of a container (`0` when absent), for messages. */
export function containerRequestText(container: Container, resource: string): string {
  const value = container.resources?.requests?.[resource];
  return value === undefined ? '0' : String(value);
}

export function containerRequest(container: Container, resource: string): number {
  return quantityOrZero(container.resources?.requests?.[resource]);
}

/** Upstream GetResourceRequestQuantity: max(Σ containers, max init container) + overhead. */
export function podRequest(pod: Pod, resource: string): number {
  let sum = 0;
  for (const c of pod.spec.containers) sum += containerRequest(c, resource);
  let initMax = 0;
  for (const c of pod.spec.initContainers ?? []) initMax = Math.max(initMax, containerRequest(c, resource));
  const overhead = quantityOrZero((pod.spec.overhead as Record<string, string | number> | undefined)?.[resource]);
  return Math.max(sum, initMax) + overhead;
}

/** Upstream PodLimits for one resource: Σ container limits (max with any init container), or undefined when none sets it. */
export function podLimit(pod: Pod, resource: string): { value: number; text: string } | undefined {
  const texts: string[] = [];
  let sum = 0;
  for (const c of pod.spec.containers) {
    const v = c.resources?.limits?.[resource];
    if (v === undefined) continue;
    texts.push(String(v));
    sum += quantityOrZero(v);
  }
  for (const c of pod.spec.initContainers ?? []) {
    const v = c.resources?.limits?.[resource];
    if (v === undefined) continue;
    if (quantityOrZero(v) > sum) {
      texts.splice(0, texts.length, String(v));
      sum = quantityOrZero(v);
    }
  }
  if (texts.length === 0) return undefined;
  // Go prints a single quantity as written, a sum in its canonical form.
  return { value: sum, text: texts.length === 1 ? (texts[0] as string) : formatBinaryQuantity(sum) };
}

/** Upstream localEphemeralVolumeNames: gitRepo, disk-backed emptyDir, configMap, downwardAPI. */
export function localEphemeralVolumeNames(pod: Pod): string[] {
  return (pod.spec.volumes ?? [])
    .filter((v) => {
      const r = v as Record<string, unknown>;
      const emptyDir = r['emptyDir'] as { medium?: string } | undefined;
      return (
        r['gitRepo'] !== undefined ||
        (emptyDir !== undefined && emptyDir.medium !== 'Memory') ||
        r['configMap'] !== undefined ||
        r['downwardAPI'] !== undefined
      );
    })
    .map((v) => v.name);
}

const used = (fs: FsStats | undefined, inodes: boolean): number => (inodes ? (fs?.inodesUsed ?? 0) : (fs?.usedBytes ?? 0));

/** Upstream podDiskUsage / podLocalEphemeralStorageUsage: bytes (or inodes) over the chosen parts. */
export function podDiskUsage(stats: PodStats, pod: Pod, measure: readonly FsStatsType[], inodes: boolean): number {
  let total = 0;
  if (measure.includes('root')) for (const c of stats.containers) total += used(c.rootfs, inodes);
  if (measure.includes('logs')) for (const c of stats.containers) total += used(c.logs, inodes);
  if (measure.includes('localVolumeSource')) {
    const local = new Set(localEphemeralVolumeNames(pod));
    for (const v of stats.volume ?? []) if (local.has(v.name)) total += used(v, inodes);
  }
  return total;
}

export function podMemoryUsage(stats: PodStats): number {
  return stats.memory?.workingSetBytes ?? 0;
}

export function podProcessCount(stats: PodStats): number {
  return stats.process_stats?.process_count ?? 0;
}

export function containerEphemeralUsage(c: ContainerStats, includeRootfs: boolean): number {
  return (c.logs?.usedBytes ?? 0) + (includeRootfs ? (c.rootfs?.usedBytes ?? 0) : 0);
}
