export { FakeClock, flushMicrotasks } from './fake-clock.js';
export { RecordingLogger } from './recording-logger.js';
export type { LogRecord } from './recording-logger.js';
