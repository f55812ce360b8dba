import type { Event, EventSource } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger } from '@kubelet-ts/common';

/**
 * What a repeated event changes on the first one: the body of a strategic-merge PATCH of
 * `/api/v1/namespaces/<ns>/events/<name>` (`application/strategic-merge-patch+json`), exactly
 * the keys client-go's two-way merge patch has.
 */
export interface EventPatch {
  count: number;
  lastTimestamp: string;
  /** Left out when the message is empty (the patch is a diff against an empty message). */
  message?: string;
}

/**
 * The port to the API server (client-go `record.EventSink`). Both calls resolve to the event the
 * server stored. A failure throws an error with `statusCode: number` and `reason: string` when the
 * server answered (classified with @kubelet-ts/api's `isNotFound` & co.; optional `details.causes`
 * as in a metav1.Status), and any other error when it could not be reached.
 */
export interface EventSink {
  /** `POST /api/v1/namespaces/<event.metadata.namespace>/events`. */
  create(event: Event): Promise<unknown>;
  /** `PATCH /api/v1/namespaces/<namespace>/events/<name>` with a strategic merge patch. */
  patch(namespace: string, name: string, patch: EventPatch): Promise<unknown>;
}

/** client-go `record.CorrelatorOptions`; every field defaults to upstream's value ({@link CORRELATOR_DEFAULTS}). */
export interface CorrelatorOptions {
  /** Entries of each LRU cache (aggregation, counting, spam filter). */
  lruCacheSize?: number;
  /** Events a source may send about one object at once. */
  burstSize?: number;
  /** Refill of that budget, events a second. */
  qps?: number;
  /** Distinct messages of similar events (same source, object, type, reason) that make an aggregate. */
  maxEvents?: number;
  /** How long a group of similar events stays open after its last event, in seconds. */
  maxIntervalSeconds?: number;
}

export interface EventBroadcasterOptions {
  clock?: Clock;
  logger?: Logger;
  /** In [0, 1): spreads the first retry (upstream randomizes it so that clients do not retry in step). */
  random?: () => number;
  /** Sleep between two tries of an event the API server could not be reached for (default 10 s). */
  sleepDurationMs?: number;
  /** Tries of one event before it is dropped (default 12). */
  maxTriesPerEvent?: number;
  /** Events each destination may hold before new ones are dropped (default 1000). */
  queueLength?: number;
  correlator?: CorrelatorOptions;
}

/** The level `startStructuredLogging` logs events at; upstream logs them at verbosity 3. */
export type EventLogLevel = 'debug' | 'info';

/** Stops one destination: it receives no more events and what it still holds is dropped. */
export type StopWatching = () => void;

/**
 * client-go `record.EventBroadcaster`: recorders put events in; each destination (the API sink,
 * the log, a handler) gets them asynchronously through its own bounded queue.
 */
export interface EventBroadcaster {
  /** A recorder whose events have this source (the kubelet: `{ component: 'kubelet', host: <node> }`). */
  newRecorder(source: EventSource): EventRecorder;
  /** Sends events to the API server, correlated (count patches, aggregation, spam filter) and retried. */
  startRecordingToSink(sink: EventSink): StopWatching;
  /** Logs each event ("Event occurred", with object, fieldPath, kind, apiVersion, type, reason, message). */
  startStructuredLogging(options?: { level?: EventLogLevel; logger?: Logger }): StopWatching;
  /** Hands each event to `handler` (upstream StartEventWatcher); a throwing handler is logged. */
  startEventWatcher(handler: (event: Event) => void | Promise<void>): StopWatching;
  /** Resolves once every destination has handled what it holds (retries and their sleeps included). */
  flush(): Promise<void>;
  /**
   * Stops accepting events, ends retries and drops what is queued; resolves when the attempts under
   * way have returned. Events recorded afterwards are dropped (logged at debug level).
   */
  shutdown(): Promise<void>;
}
