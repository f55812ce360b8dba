// Upstream pkg/util/pod PatchPodStatus / preparePatchBytesForPodStatus.
import type { PodStatus } from '@kubelet-ts/api';
import { createTwoWayMergePatch, POD_PATCH_META } from '@kubelet-ts/api';
import { canonicalStatus } from './normalize-status.js';

const ATOMIC_STATUS_LISTS = ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'] as const;

export interface PodStatusPatch {
  /** The strategic merge patch body; `metadata.uid` is always in it (the precondition). */
  patch: Record<string, unknown>;
  /** The patch is the precondition alone: nothing to send. */
  unchanged: boolean;
}

/**
 * The patch from the API's status to `status`, as upstream builds it: the two-way diff of
 * `{status: api}` and `{metadata: {uid}, status}`, so that the UID (absent on the old side) is
 * always in it and the server refuses the patch for a pod recreated under the same name. Both
 * sides are compared in their canonical form (what Go would decode alike is alike).
 */
export function podStatusPatch(uid: string, apiStatus: PodStatus, status: PodStatus): PodStatusPatch {
  const patch = createTwoWayMergePatch(
    { status: canonicalStatus(apiStatus) },
    { metadata: { uid }, status: canonicalStatus(status) },
    POD_PATCH_META,
  );
  // A changed atomic list goes whole as Go writes it (ready, restartCount… even when zero), not in
  // the shortest form the diff compared.
  const diff = patch['status'];
  if (typeof diff === 'object' && diff !== null) {
    const fields = diff as Record<string, unknown>;
    for (const list of ATOMIC_STATUS_LISTS) {
      if (Array.isArray(fields[list])) fields[list] = JSON.parse(JSON.stringify(status[list] ?? [])) as unknown;
    }
  }
  const keys = Object.keys(patch);
  const meta = patch['metadata'];
  const onlyUid =
    typeof meta === 'object' && meta !== null && Object.keys(meta).length === 1 && (meta as Record<string, unknown>)['uid'] === uid;
  return { patch, unchanged: keys.length === 1 && keys[0] === 'metadata' && onlyUid };
}
