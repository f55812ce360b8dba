/**
 * Upstream v1.ObjectReference, the part an event needs: which object (and, through
 * `fieldPath`, which container of it, e.g. `spec.containers{app}`) the event is about.
 */
export interface ObjectReference {
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

/** Upstream v1.EventTypeNormal and v1.EventTypeWarning, the only two event types. */
export const EventType = {
  Normal: 'Normal',
  Warning: 'Warning',
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** What an event may carry besides its message: upstream `AnnotatedEventf`'s annotations (eviction uses them). */
export interface EventOptions {
  /** Set as the Event's `metadata.annotations`. */
  annotations?: Record<string, string>;
}

/**
 * Upstream record.EventRecorder: libraries report what happened to an object; the application
 * decides where events go (the log in standalone mode, the API server too in API mode, through
 * @kubelet-ts/events). Reasons are the `EventReason` constants of @kubelet-ts/api. There is no
 * `eventf`: template literals do its job; `options.annotations` is upstream's `AnnotatedEventf`.
 */
export interface EventRecorder {
  event(object: ObjectReference, type: EventType, reason: string, message: string, options?: EventOptions): void;
}

/** A recorder that drops every event: the default of every library, as `noopLogger` is. */
export const noopEventRecorder: EventRecorder = {
  event: () => undefined,
};

/**
 * The reference of the kubelet's events about its Node, as the v1.34 kubelet builds it
 * (`pkg/kubelet/kubelet.go`): no namespace (the event goes to `default`), the node name as UID,
 * no apiVersion.
 */
export function nodeReference(nodeName: string): ObjectReference {
  return { kind: 'Node', name: nodeName, uid: nodeName };
}

/** The metadata of a pod, as much as a reference needs (any core/v1 Pod has it). */
export interface ReferencedPod {
  metadata: { name: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** Upstream ref.GetReference of a pod: kind, apiVersion, namespace, name, uid and resourceVersion. */
export function podReference(pod: ReferencedPod): ObjectReference {
  const { name, namespace, uid, resourceVersion } = pod.metadata;
  const ref: ObjectReference = { kind: 'Pod', apiVersion: 'v1', name };
  if (namespace !== undefined && namespace !== '') ref.namespace = namespace;
  if (uid !== undefined && uid !== '') ref.uid = uid;
  if (resourceVersion !== undefined && resourceVersion !== '') ref.resourceVersion = resourceVersion;
  return ref;
}

/** The pod-spec list a container is declared in. */
export type ContainerListField = 'containers' | 'initContainers' | 'ephemeralContainers';

/**
 * Upstream kubecontainer.GenerateContainerRef: the pod's reference with `fieldPath`
 * `spec.<list>{<name>}`, e.g. `spec.containers{nginx}` or `spec.initContainers{setup}`.
 */
export function containerReference(pod: ReferencedPod, containerName: string, list: ContainerListField = 'containers'): ObjectReference {
  return { ...podReference(pod), fieldPath: `spec.${list}{${containerName}}` };
}
