import type { Pod } from '@kubelet-ts/api';
import type { PodStats } from '@kubelet-ts/stats';
import { containerEphemeralUsage, podDiskUsage, podLimit } from './internal/pod-usage.js';
import { quantityOrZero } from './internal/quantity.js';
import { MessageFormat } from './messages.js';

/** Which local-storage limit a pod exceeds (upstream emptyDir/pod/container limit eviction), as the eviction message. */
export function localStorageViolation(pod: Pod, podStats: PodStats, dedicatedImageFs: boolean): string | undefined {
  return localStorageViolationOf(pod, podStats, dedicatedImageFs)?.message;
}

/** Upstream's eviction signals of the local-storage limits (the `eviction_signal` of `kubelet_evictions`). */
export type LocalStorageSignal = 'emptydirfs.limit' | 'ephemeralpodfs.limit' | 'ephemeralcontainerfs.limit';

/** {@link localStorageViolation} with the signal that the limit is. */
export function localStorageViolationOf(
  pod: Pod,
  podStats: PodStats,
  dedicatedImageFs: boolean,
): { signal: LocalStorageSignal; message: string } | undefined {
  const volumeUsed = new Map((podStats.volume ?? []).map((v) => [v.name, v.usedBytes]));
  for (const volume of pod.spec.volumes ?? []) {
    const emptyDir = (volume as { emptyDir?: { sizeLimit?: string | number } }).emptyDir;
    const limit = emptyDir?.sizeLimit;
    const usedBytes = volumeUsed.get(volume.name);
    if (limit === undefined || usedBytes === undefined) continue;
    const limitBytes = quantityOrZero(limit);
    if (limitBytes > 0 && usedBytes > limitBytes)
      return { signal: 'emptydirfs.limit', message: MessageFormat.emptyDir(volume.name, String(limit)) };
  }
  const podLimitValue = podLimit(pod, 'ephemeral-storage');
  if (podLimitValue !== undefined) {
    const usage = podDiskUsage(podStats, pod, ['root', 'logs', 'localVolumeSource'], false);
    if (usage > podLimitValue.value)
      return { signal: 'ephemeralpodfs.limit', message: MessageFormat.podEphemeralStorage(podLimitValue.text) };
  }
  for (const cs of podStats.containers) {
    const container = pod.spec.containers.find((c) => c.name === cs.name);
    const limit = container?.resources?.limits?.['ephemeral-storage'];
    if (limit === undefined || quantityOrZero(limit) === 0) continue;
    // With a dedicated imagefs the writable layer is not on nodefs: only logs count.
    if (containerEphemeralUsage(cs, !dedicatedImageFs) > quantityOrZero(limit))
      return { signal: 'ephemeralcontainerfs.limit', message: MessageFormat.containerEphemeralStorage(cs.name, String(limit)) };
  }
  return undefined;
}

/** Whether {@link localStorageViolation} can find anything for the pod: an emptyDir sizeLimit or an ephemeral-storage limit. */
export function hasLocalStorageLimits(pod: Pod): boolean {
  if ((pod.spec.volumes ?? []).some((v) => (v as { emptyDir?: { sizeLimit?: unknown } }).emptyDir?.sizeLimit !== undefined)) return true;
  return podLimit(pod, 'ephemeral-storage') !== undefined;
}
