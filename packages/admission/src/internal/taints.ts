// Upstream component-helpers scheduling/corev1 FindMatchingUntoleratedTaint and v1 Toleration.ToleratesTaint.
import type { Taint, Toleration } from '@kubelet-ts/api';

function toleratesTaint(t: Toleration, taint: Taint): boolean {
  if (t.effect !== undefined && t.effect !== '' && t.effect !== taint.effect) return false;
  if (t.key !== undefined && t.key !== '' && t.key !== taint.key) return false;
  switch (t.operator ?? '') {
    // An empty operator means Equal.
    case '':
    case 'Equal':
      return (t.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** The first taint that passes `filter` and that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[] | undefined,
  tolerations: readonly Toleration[] | undefined,
  filter: (taint: Taint) => boolean,
): Taint | undefined {
  return (taints ?? []).find((taint) => filter(taint) && !(tolerations ?? []).some((t) => toleratesTaint(t, taint)));
}
