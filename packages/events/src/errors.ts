import { defineError } from '@kubelet-ts/common';

export type EventsErrorCode =
  /** The API server answered a create or patch with something that is not a core/v1 Event. */
  | 'INVALID_EVENT'
  /** An event was recorded after the broadcaster was shut down. */
  | 'SHUT_DOWN';

/** The one error class of @kubelet-ts/events. Recording never throws: these errors are logged. */
export class EventsError extends defineError<EventsErrorCode>('EventsError', { defaultCode: 'INVALID_EVENT' }) {}
