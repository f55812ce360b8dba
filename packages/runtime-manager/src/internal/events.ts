// Upstream kubecontainer.GenerateContainerRef and kuberuntime recordContainerEvent.
import type { Pod } from '@kubelet-ts/api';
import type { EventRecorder, EventType, ObjectReference } from '@kubelet-ts/common';
import { containerReference, podReference } from '@kubelet-ts/common';

/**
 * The reference of a container's events: the pod's, with `fieldPath` naming the list the container
 * is declared in (`spec.containers{app}`, `spec.initContainers{setup}`). A container the spec does
 * not declare (restored from CRI labels after the pod was deleted) gets upstream's
 * `implicitly required container <name>`.
 */
export function containerRef(pod: Pod, name: string): ObjectReference {
  const has = (list: ReadonlyArray<{ name: string }> | undefined): boolean => list?.some((c) => c.name === name) === true;
  if (has(pod.spec.containers)) return containerReference(pod, name, 'containers');
  if (has(pod.spec.initContainers)) return containerReference(pod, name, 'initContainers');
  if (has(pod.spec.ephemeralContainers)) return containerReference(pod, name, 'ephemeralContainers');
  return { ...podReference(pod), fieldPath: `implicitly required container ${name}` };
}

/** One event about a container. */
export interface ContainerEvent {
  pod: Pod;
  name: string;
  /** The CRI container ID, '' before it exists: replaced by the name in the message. */
  containerId: string;
  type: EventType;
  reason: string;
  message: string;
}

/**
 * Records an event about a container (upstream recordContainerEvent): a runtime error often quotes
 * the container ID, which would make every event distinct; the name stands in for it, as upstream.
 */
export function recordContainerEvent(recorder: EventRecorder, event: ContainerEvent): void {
  const { pod, name, containerId, type, reason } = event;
  const message = containerId === '' ? event.message : event.message.replaceAll(containerId, name);
  recorder.event(containerRef(pod, name), type, reason, message);
}
