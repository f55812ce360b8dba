import type { Container, Pod } from '@kubelet-ts/api';
import { fnv1a32 } from './internal/fnv.js';

/**
 * A stable hash of a container spec, as lowercase hex (upstream HashContainer: FNV-1a 32 over the
 * JSON of the spec with nil/empty fields omitted). Object keys are sorted so that the hash does
 * not depend on the order fields were written in; `undefined`, `null`, empty arrays and empty
 * objects are omitted as Go's omitempty does. A changed spec gives a different hash, which makes
 * computePodActions restart the container.
 */
export function hashContainer(container: Container): string {
  return fnv1a32(canonicalJson(container)).toString(16);
}

/**
 * The per-container CrashLoopBackOff key (upstream GetStableKey):
 * `<podName>_<namespace>_<podUID>_<containerName>_<specHash>`. A changed spec starts a fresh back-off.
 */
export function backoffKey(pod: Pod, container: Container): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${container.name}_${hashContainer(container)}`;
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(prune(value)) ?? '';
}

function prune(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map((v) => prune(v) ?? null);
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const pruned = prune((value as Record<string, unknown>)[key]);
      if (pruned !== undefined) out[key] = pruned;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}
