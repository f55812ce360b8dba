import type { EventRecorder, EventType, ObjectReference } from '../events.js';

export interface RecordedEvent {
  object: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

/** An event recorder that keeps every event, in order, for assertions (upstream record.FakeRecorder). */
export class RecordingEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];

  event(object: ObjectReference, type: EventType, reason: string, message: string): void {
    // A copy: the caller may reuse or change its reference object afterwards.
    this.events.push({ object: { ...object }, type, reason, message });
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
