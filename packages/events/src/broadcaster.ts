import type { Event, EventSource } from '@kubelet-ts/api';
import { EventType, errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { EventOptions, EventRecorder, ObjectReference } from '@kubelet-ts/common';
import { DELIVERY_DEFAULTS } from './constants.js';
import { EventsError } from './errors.js';
import { createEventCorrelator } from './internal/correlator.js';
import { EventQueue } from './internal/event-queue.js';
import { eventNamer, makeEvent, sourceOf } from './internal/make-event.js';
import { logEvent } from './internal/log-event.js';
import { recordToSink } from './internal/record-to-sink.js';
import type { EventBroadcaster, EventBroadcasterOptions, EventLogLevel, EventSink, StopWatching } from './types.js';

const VALID_TYPES: ReadonlySet<string> = new Set(Object.values(EventType));

/**
 * Upstream `record.NewBroadcaster`. The kubelet makes one, logs events with
 * `startStructuredLogging()` and, in API mode, sends them with `startRecordingToSink(sink)`; its
 * libraries get `newRecorder({ component: 'kubelet', host: nodeName })`.
 */
export function createEventBroadcaster(options: EventBroadcasterOptions = {}): EventBroadcaster {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const queueLength = options.queueLength ?? DELIVERY_DEFAULTS.queueLength;
  const nameEvent = eventNamer();
  const shutdown = new AbortController();
  const queues = new Map<EventQueue, string>();

  const watch = (destination: string, handler: (event: Event) => void | Promise<void>): StopWatching => {
    const queue = new EventQueue(handler, queueLength, logger.child({ destination }));
    if (shutdown.signal.aborted) return () => undefined;
    queues.set(queue, destination);
    return () => {
      queues.delete(queue);
      void queue.stop();
    };
  };

  const action = (event: Event): void => {
    if (shutdown.signal.aborted) {
      const err = new EventsError('SHUT_DOWN', 'the event broadcaster is shut down');
      logger.debug('Unable to record event (will not retry!)', { reason: event.reason, err: err.message });
      return;
    }
    for (const [queue, destination] of queues) {
      if (!queue.offer(event)) {
        logger.error('Unable to record event: too many queued events, dropped event', {
          destination,
          reason: event.reason,
          object: event.involvedObject.name,
        });
      }
    }
  };

  const newRecorder = (source: EventSource): EventRecorder => {
    const src = sourceOf(source);
    return {
      event(ref: ObjectReference, type: EventType, reason: string, message: string, opts?: EventOptions): void {
        // Recording never throws into the caller: a library's work matters more than its event.
        try {
          if (!VALID_TYPES.has(type)) {
            logger.error('Unsupported event type', { eventType: type, reason });
            return;
          }
          const nowMs = clock.now();
          const name = nameEvent(ref.name, nowMs);
          action(makeEvent({ ref, type, reason, message, annotations: opts?.annotations, source: src, name, nowMs }));
        } catch (err) {
          logger.error('Could not record event', { reason, err: errorMessage(err) });
        }
      },
    };
  };

  const startRecordingToSink = (sink: EventSink): StopWatching => {
    const delivery = {
      sink,
      correlator: createEventCorrelator(clock, nameEvent, options.correlator),
      clock,
      logger,
      random: options.random ?? Math.random,
      sleepDurationMs: options.sleepDurationMs ?? DELIVERY_DEFAULTS.sleepDurationMs,
      maxTriesPerEvent: options.maxTriesPerEvent ?? DELIVERY_DEFAULTS.maxTriesPerEvent,
      signal: shutdown.signal,
    };
    return watch('sink', (event) => recordToSink(delivery, event));
  };

  const startStructuredLogging = (opts: { level?: EventLogLevel; logger?: typeof logger } = {}): StopWatching => {
    const out = opts.logger ?? logger;
    const level = opts.level ?? 'debug';
    return watch('log', (e) => logEvent(out, level, e));
  };

  return {
    newRecorder,
    startRecordingToSink,
    startStructuredLogging,
    startEventWatcher: (handler) => watch('watcher', (event) => handler(structuredClone(event))),
    async flush() {
      // A handler may be handed new events while others drain: wait until all are idle at once.
      while ([...queues.keys()].some((q) => !q.isIdle())) await Promise.all([...queues.keys()].map((q) => q.idle()));
    },
    async shutdown() {
      shutdown.abort(new EventsError('SHUT_DOWN', 'the event broadcaster is shut down'));
      const stopping = [...queues.keys()].map((q) => q.stop());
      queues.clear();
      await Promise.all(stopping);
    },
  };
}
