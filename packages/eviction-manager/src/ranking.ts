import type { Pod } from '@kubelet-ts/api';
import type { PodStats } from '@kubelet-ts/stats';
import type { EvictionSignal } from './constants.js';
import { podPriority } from './critical.js';
import type { FsStatsType } from './internal/pod-usage.js';
import { podDiskUsage, podMemoryUsage, podProcessCount, podRequest } from './internal/pod-usage.js';

/** The stats of a pod, when the summary has them (upstream statsFunc). */
export type PodStatsFn = (pod: Pod) => PodStats | undefined;
type Cmp = (a: Pod, b: Pod) => number;

/** Sorts pods in place by the comparators, in order (upstream orderedBy(...).Sort); stable. */
function orderedBy(...cmps: Cmp[]): (pods: Pod[]) => void {
  return (pods) => {
    pods.sort((a, b) => {
      for (const cmp of cmps) {
        const r = cmp(a, b);
        if (r !== 0) return r;
      }
      return 0;
    });
  };
}

/** Upstream cmpBool: true sorts first. */
function cmpBool(a: boolean, b: boolean): number {
  if (a === b) return 0;
  return a ? -1 : 1;
}

/** Lower priority is evicted first (upstream priority). */
export const byPriority: Cmp = (a, b) => {
  const pa = podPriority(a);
  const pb = podPriority(b);
  return pa === pb ? 0 : pa > pb ? 1 : -1;
};

/** Pods without stats first, then by `value`, larger first. */
function byLargest(stats: PodStatsFn, value: (pod: Pod, s: PodStats) => number): Cmp {
  return (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (sa === undefined || sb === undefined) return cmpBool(sa === undefined, sb === undefined);
    const va = value(a, sa);
    const vb = value(b, sb);
    return va === vb ? 0 : va > vb ? -1 : 1;
  };
}

/** Pods without stats first, then pods whose usage exceeds their requests. */
function exceedsRequests(stats: PodStatsFn, usage: (pod: Pod, s: PodStats) => number, resource: string): Cmp {
  return (a, b) => {
    const sa = stats(a);
    const sb = stats(b);
    if (sa === undefined || sb === undefined) return cmpBool(sa === undefined, sb === undefined);
    return cmpBool(usage(a, sa) > podRequest(a, resource), usage(b, sb) > podRequest(b, resource));
  };
}

/** Upstream rankMemoryPressure: usage above requests, then priority, then usage − requests. */
export function rankMemoryPressure(pods: Pod[], stats: PodStatsFn): void {
  const usage = (_: Pod, s: PodStats): number => podMemoryUsage(s);
  orderedBy(
    exceedsRequests(stats, usage, 'memory'),
    byPriority,
    byLargest(stats, (p, s) => podMemoryUsage(s) - podRequest(p, 'memory')),
  )(pods);
}

/** Upstream rankPIDPressure: priority, then process count. */
export function rankPIDPressure(pods: Pod[], stats: PodStatsFn): void {
  orderedBy(
    byPriority,
    byLargest(stats, (_, s) => podProcessCount(s)),
  )(pods);
}

/**
 * Upstream rankDiskPressureFunc: usage above the ephemeral-storage request, then priority, then
 * usage − request; over the given parts of the pod's storage, in bytes or inodes (no requests).
 */
export function rankDiskPressure(measure: readonly FsStatsType[], inodes: boolean): (pods: Pod[], stats: PodStatsFn) => void {
  return (pods, stats) => {
    const usage = (p: Pod, s: PodStats): number => podDiskUsage(s, p, measure, inodes);
    const request = (p: Pod): number => (inodes ? 0 : podRequest(p, 'ephemeral-storage'));
    orderedBy(
      (a, b) => {
        const sa = stats(a);
        const sb = stats(b);
        if (sa === undefined || sb === undefined) return cmpBool(sa === undefined, sb === undefined);
        return cmpBool(usage(a, sa) > request(a), usage(b, sb) > request(b));
      },
      byPriority,
      byLargest(stats, (p, s) => usage(p, s) - request(p)),
    )(pods);
  };
}

/**
 * Upstream buildSignalToRankFunc. With a dedicated imagefs, nodefs signals rank by logs and local
 * volumes and imagefs ones by writable layers; otherwise all signals rank by the three together.
 */
export function rankFuncFor(signal: EvictionSignal, dedicatedImageFs: boolean): (pods: Pod[], stats: PodStatsFn) => void {
  const all: FsStatsType[] = ['root', 'logs', 'localVolumeSource'];
  const nodefs: FsStatsType[] = dedicatedImageFs ? ['logs', 'localVolumeSource'] : all;
  const imagefs: FsStatsType[] = dedicatedImageFs ? ['root'] : all;
  switch (signal) {
    case 'memory.available':
    case 'allocatableMemory.available':
      return rankMemoryPressure;
    case 'pid.available':
      return rankPIDPressure;
    case 'nodefs.available':
      return rankDiskPressure(nodefs, false);
    case 'nodefs.inodesFree':
      return rankDiskPressure(nodefs, true);
    case 'imagefs.available':
    case 'containerfs.available':
      return rankDiskPressure(imagefs, false);
    case 'imagefs.inodesFree':
    case 'containerfs.inodesFree':
      return rankDiskPressure(imagefs, true);
  }
}
