import type { Pod } from '@kubelet-ts/api';
import { ConfigFirstSeenAnnotationKey, ConfigMirrorAnnotationKey, ConfigSourceAnnotationKey } from '@kubelet-ts/api';
import { jsonEqual } from './json.js';

// Annotations the kubelet adds itself; changes to them are not changes of the pod.
const LOCAL_ANNOTATIONS = [ConfigSourceAnnotationKey, ConfigMirrorAnnotationKey, ConfigFirstSeenAnnotationKey];

function annotationsEqualIgnoringLocal(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const strip = (m: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m ?? {})) if (!LOCAL_ANNOTATIONS.includes(k)) out[k] = v;
    return out;
  };
  return jsonEqual(strip(a), strip(b));
}

/** Upstream podsDifferSemantically: spec, labels, deletion fields and non-local annotations. */
function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  return !(
    jsonEqual(existing.spec, ref.spec) &&
    jsonEqual(existing.metadata.labels ?? {}, ref.metadata.labels ?? {}) &&
    existing.metadata.deletionTimestamp === ref.metadata.deletionTimestamp &&
    existing.metadata.deletionGracePeriodSeconds === ref.metadata.deletionGracePeriodSeconds &&
    annotationsEqualIgnoringLocal(existing.metadata.annotations, ref.metadata.annotations)
  );
}

export type PodChange = 'update' | 'delete' | 'reconcile' | 'none';

/** What checkAndUpdatePod would call the change from `existing` to `ref`, touching neither. */
export function podChange(existing: Pod, ref: Pod): PodChange {
  if (podsDifferSemantically(existing, ref)) return ref.metadata.deletionTimestamp !== undefined ? 'delete' : 'update';
  return jsonEqual(existing.status ?? {}, ref.status ?? {}) ? 'none' : 'reconcile';
}

/**
 * Upstream checkAndUpdatePod: updates `existing` in place (taking parts of `ref`, not copies) and says
 * what kind of change it was. Status-only changes are a reconcile; a change with a deletion timestamp
 * is a graceful delete.
 */
export function checkAndUpdatePod(existing: Pod, ref: Pod): PodChange {
  const change = podChange(existing, ref);
  if (change === 'none') return change;
  if (change === 'reconcile') {
    existing.status = ref.status;
    return change;
  }
  existing.spec = ref.spec;
  existing.metadata.labels = ref.metadata.labels;
  existing.metadata.deletionTimestamp = ref.metadata.deletionTimestamp;
  existing.metadata.deletionGracePeriodSeconds = ref.metadata.deletionGracePeriodSeconds;
  existing.status = ref.status;
  // Take the new annotations but keep the kubelet's own (first seen time, source, mirror).
  const annotations: Record<string, string> = { ...ref.metadata.annotations };
  for (const key of LOCAL_ANNOTATIONS) {
    const value = existing.metadata.annotations?.[key];
    if (value !== undefined) annotations[key] = value;
  }
  existing.metadata.annotations = annotations;
  return change;
}
