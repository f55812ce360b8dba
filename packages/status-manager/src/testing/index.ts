export { FakeStatusSink } from './fake-status-sink.js';
export type { FakeStatusSinkCall } from './fake-status-sink.js';
