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

/**
 * Upstream record.EventRecorder: libraries report what happened to an object; the application
 * decides where events go (nowhere in standalone mode, the API server later). Reasons are the
 * `EventReason` constants of @kubelet-ts/api. There is no `eventf`: template literals do its job.
 */
export interface EventRecorder {
  event(object: ObjectReference, type: EventType, reason: string, message: string): void;
}

/** A recorder that drops every event: the default of every library, as `noopLogger` is. */
export const noopEventRecorder: EventRecorder = {
  event: () => undefined,
};
