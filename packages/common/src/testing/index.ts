export { FakeClock, flushMicrotasks } from './fake-clock.js';
export { RecordingLogger } from './recording-logger.js';
export type { LogRecord } from './recording-logger.js';
export { RecordingEventRecorder } from './recording-event-recorder.js';
export type { RecordedEvent } from './recording-event-recorder.js';
export { RecordingMetrics } from './recording-metrics.js';
export type { MetricKind, MetricSample } from './recording-metrics.js';
