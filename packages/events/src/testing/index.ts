export { FakeEventSink, FakeStatusError, fakeTransportError } from './fake-event-sink.js';
export type { FakeEventSinkCall } from './fake-event-sink.js';
