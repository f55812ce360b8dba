// Upstream status_manager.go normalizeStatus, and the Go-equivalence the patch diff needs.
import type { ContainerState, ContainerStatus, Pod, PodStatus } from '@kubelet-ts/api';
import { formatTime } from '@kubelet-ts/api';

/** Upstream kubecontainer.MaxPodTerminationMessageLogLength: all terminated messages of a pod together. */
export const MAX_POD_TERMINATION_MESSAGE_BYTES = 12 * 1024;

const TIMESTAMP = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** metav1.Time.Rfc3339Copy: second precision, UTC. Anything that is not a timestamp is left alone. */
export function toRfc3339Seconds(value: string): string {
  const m = TIMESTAMP.exec(value);
  if (m === null) return value;
  const [, seconds, , zone] = m;
  if (zone === 'Z' || zone === 'z') return `${seconds}Z`;
  const ms = Date.parse(`${seconds}${zone}`);
  return Number.isNaN(ms) ? value : formatTime(ms);
}

/** The first `maxBytes` bytes of `text` in UTF-8, cut at a character boundary (Go cuts bytes blindly). */
function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up over continuation bytes (10xxxxxx) so that no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

function normalizeState(state: ContainerState | undefined, bytesPerStatus: number): void {
  if (state?.running?.startedAt !== undefined) state.running.startedAt = toRfc3339Seconds(state.running.startedAt);
  const t = state?.terminated;
  if (t === undefined) return;
  if (t.startedAt !== undefined) t.startedAt = toRfc3339Seconds(t.startedAt);
  if (t.finishedAt !== undefined) t.finishedAt = toRfc3339Seconds(t.finishedAt);
  if (t.message !== undefined) t.message = truncateUtf8(t.message, bytesPerStatus);
}

/** Upstream SortInitContainerStatuses: init container statuses in the order of the spec. */
function sortInitStatuses(pod: Pick<Pod, 'spec'>, statuses: ContainerStatus[]): void {
  let current = 0;
  for (const container of pod.spec.initContainers ?? []) {
    for (let j = current; j < statuses.length; j++) {
      if (statuses[j]?.name !== container.name) continue;
      [statuses[current], statuses[j]] = [statuses[j] as ContainerStatus, statuses[current] as ContainerStatus];
      current++;
      break;
    }
  }
}

/**
 * Upstream normalizeStatus, on a copy: timestamps at second precision (the API stores no more),
 * terminated messages cut to an equal share of 12 KiB per container of the spec (ephemeral ones
 * included), container and ephemeral container statuses sorted by name and init container
 * statuses in spec order.
 */
export function normalizeStatus(pod: Pick<Pod, 'spec'>, input: PodStatus): PodStatus {
  const status = structuredClone(input);
  const containers = pod.spec.containers.length + (pod.spec.initContainers?.length ?? 0) + (pod.spec.ephemeralContainers?.length ?? 0);
  const bytesPerStatus = containers > 0 ? Math.floor(MAX_POD_TERMINATION_MESSAGE_BYTES / containers) : MAX_POD_TERMINATION_MESSAGE_BYTES;
  if (status.startTime !== undefined) status.startTime = toRfc3339Seconds(status.startTime);
  for (const c of status.conditions ?? []) {
    if (c.lastProbeTime !== undefined) c.lastProbeTime = toRfc3339Seconds(c.lastProbeTime);
    if (c.lastTransitionTime !== undefined) c.lastTransitionTime = toRfc3339Seconds(c.lastTransitionTime);
  }
  for (const s of [
    ...(status.containerStatuses ?? []),
    ...(status.initContainerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ]) {
    normalizeState(s.state, bytesPerStatus);
    normalizeState(s.lastState, bytesPerStatus);
  }
  const byName = (a: ContainerStatus, b: ContainerStatus): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  status.containerStatuses?.sort(byName);
  if (status.initContainerStatuses !== undefined) sortInitStatuses(pod, status.initContainerStatuses);
  status.ephemeralContainerStatuses?.sort(byName);
  return status;
}

// Fields of a container status that Go always writes, so their zero value means "not set".
const CONTAINER_ZERO_FIELDS: Readonly<Record<string, unknown>> = { ready: false, restartCount: 0, image: '', imageID: '' };
const CONTAINER_STATUS_LISTS = new Set(['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses']);

function canonical(value: unknown, zeroFields: Readonly<Record<string, unknown>> | undefined): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, zeroFields)).filter((v) => v !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (zeroFields !== undefined && key in zeroFields && zeroFields[key] === child) continue;
      const c = canonical(child, CONTAINER_STATUS_LISTS.has(key) ? CONTAINER_ZERO_FIELDS : undefined);
      if (c !== undefined) out[key] = c;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  if (value === null || value === '' || value === undefined) return undefined;
  return value;
}

/**
 * A status as Go would decode it, written the shortest way: no null, empty string, empty object or
 * empty list (every PodStatus field is omitempty), and no zero `ready`/`restartCount`/`image`/
 * `imageID` in container statuses (Go writes those always). The API's JSON and ours then compare
 * equal when Go would find them equal, so an unchanged status makes an empty patch.
 */
export function canonicalStatus(status: PodStatus): Record<string, unknown> {
  return (canonical(status, undefined) as Record<string, unknown> | undefined) ?? {};
}
