import type { Pod } from '@kubelet-ts/api';
import type { ObjectReference } from '@kubelet-ts/common';

/** The reference an event about a pod carries (upstream ref.GetReference of a pod). */
export function podReference(pod: Pod): ObjectReference {
  return { kind: 'Pod', apiVersion: 'v1', name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid };
}
