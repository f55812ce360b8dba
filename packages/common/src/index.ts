export { noopLogger, errorMessage } from './logger.js';
export type { Logger, LogFields } from './logger.js';
export { systemClock, sleepWith, jitter } from './clock.js';
export type { Clock, TimerHandle } from './clock.js';
export { createBackoff } from './backoff.js';
export { forEachBounded } from './concurrency.js';
export type { Backoff, BackoffOptions } from './backoff.js';
