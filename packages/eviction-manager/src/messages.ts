import type { Pod } from '@kubelet-ts/api';
import type { StarvedResource } from './constants.js';
import { SIGNAL_TO_RESOURCE } from './constants.js';
import { containerEphemeralUsage, containerRequest, containerRequestText } from './internal/pod-usage.js';
import { formatBinaryQuantity } from './internal/quantity.js';
import type { PodStatsFn } from './ranking.js';
import type { SignalObservations } from './signals.js';
import type { EvictionThreshold } from './thresholds.js';
import { thresholdQuantity } from './thresholds.js';

/** Upstream message formats (pkg/kubelet/eviction/helpers.go). */
export const MessageFormat = {
  nodeLow: (resource: string): string => `The node was low on resource: ${resource}. `,
  thresholdMet: (quantity: string, available: string): string => `Threshold quantity: ${quantity}, available: ${available}. `,
  container: (name: string, usage: string, request: string, resource: string): string =>
    `Container ${name} was using ${usage}, request is ${request}, has larger consumption of ${resource}. `,
  nodeCondition: (conditions: readonly string[]): string => `The node had condition: [${conditions.join(' ')}]. `,
  emptyDir: (volume: string, limit: string): string =>
    `Usage of EmptyDir volume ${JSON.stringify(volume)} exceeds the limit ${JSON.stringify(limit)}. `,
  podEphemeralStorage: (limit: string): string => `Pod ephemeral local storage usage exceeds the total limit of containers ${limit}. `,
  containerEphemeralStorage: (container: string, limit: string): string =>
    `Container ${container} exceeded its local ephemeral storage limit ${JSON.stringify(limit)}. `,
} as const;

function thresholdText(t: EvictionThreshold, capacity: number): string {
  return 'quantity' in t.value ? t.value.text : formatBinaryQuantity(thresholdQuantity(t.value, capacity));
}

/**
 * Upstream evictionMessage: the starved resource, the threshold and what was available, and each
 * container using more than it requested (memory: working set; ephemeral-storage: rootfs + logs).
 */
export function evictionMessage(
  resource: StarvedResource,
  pod: Pod,
  stats: PodStatsFn,
  thresholds: readonly EvictionThreshold[],
  observations: SignalObservations,
): string {
  let message = MessageFormat.nodeLow(resource);
  // Upstream getThresholdMetInfo: the first met threshold of that resource.
  for (const t of thresholds) {
    if (SIGNAL_TO_RESOURCE[t.signal] !== resource) continue;
    const observed = observations[t.signal];
    if (observed === undefined) continue;
    message += MessageFormat.thresholdMet(thresholdText(t, observed.capacity), formatBinaryQuantity(observed.available));
    break;
  }
  const podStats = stats(pod);
  if (podStats === undefined) return message;
  for (const cs of podStats.containers) {
    const container = pod.spec.containers.find((c) => c.name === cs.name);
    if (container === undefined) continue;
    let usage: number | undefined;
    if (resource === 'memory' && cs.memory?.workingSetBytes !== undefined) usage = cs.memory.workingSetBytes;
    if (resource === 'ephemeral-storage' && cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined)
      usage = containerEphemeralUsage(cs, true);
    if (usage !== undefined && usage > containerRequest(container, resource)) {
      message += MessageFormat.container(container.name, formatBinaryQuantity(usage), containerRequestText(container, resource), resource);
    }
  }
  return message;
}
