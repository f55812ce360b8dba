import type { EventOptions, EventRecorder, EventType, ObjectReference } from '../events.js';

export interface RecordedEvent {
  object: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  /** Present only when the event was recorded with annotations. */
  annotations?: Record<string, string>;
}

/** An event recorder that keeps every event, in order, for assertions (upstream record.FakeRecorder). */
export class RecordingEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  event(object: ObjectReference, type: EventType, reason: string, message: string, options?: EventOptions): void {
    // A copy: the caller may reuse or change its reference object afterwards.
    const recorded: RecordedEvent = { object: { ...object }, type, reason, message };
    if (options?.annotations !== undefined) recorded.annotations = { ...options.annotations };
    this.events.push(recorded);
  }

  /** Events with this reason (and, when given, about the object with this name). */
  find(reason: string, objectName?: string): RecordedEvent[] {
    return this.events.filter((e) => e.reason === reason && (objectName === undefined || e.object.name === objectName));
  }

  /** Every event as upstream's FakeRecorder writes it: "Type Reason message". */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
  }
}
