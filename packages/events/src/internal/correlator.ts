// client-go tools/record events_cache.go: the EventCorrelator (aggregator, then the counting
// "event logger", then the per-object spam filter), with its keys and defaults.
import type { Event } from '@kubelet-ts/api';
import { formatTime } from '@kubelet-ts/api';
import { createTokenBucket } from '@kubelet-ts/common';
import type { Clock, TokenBucket } from '@kubelet-ts/common';
import { AGGREGATED_MESSAGE_PREFIX, CORRELATOR_DEFAULTS } from '../constants.js';
import type { CorrelatorOptions, EventPatch } from '../types.js';
import { LruCache } from './lru.js';

// A JSON array as the key: upstream joins the fields with "", which lets two different events collide.
const key = (...parts: (string | undefined)[]): string => JSON.stringify(parts.map((p) => p ?? ''));

/** Same source, object (fieldPath included), type, reason and message: the same event again. */
export function eventKey(e: Event): string {
  const o = e.involvedObject;
  return key(
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.fieldPath,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.message,
  );
}

/** Same source and object (fieldPath left out): one spam budget. */
function spamKey(e: Event): string {
  const o = e.involvedObject;
  return key(e.source?.component, e.source?.host, o.kind, o.namespace, o.name, o.uid, o.apiVersion);
}

/** `EventAggregatorByReasonFunc`: similar events differ only by message (fieldPath left out, as upstream). */
function aggregateKeys(e: Event): { aggregateKey: string; localKey: string } {
  const o = e.involvedObject;
  const aggregateKey = key(
    e.source?.component,
    e.source?.host,
    o.kind,
    o.namespace,
    o.name,
    o.uid,
    o.apiVersion,
    e.type,
    e.reason,
    e.reportingComponent,
    e.reportingInstance,
  );
  return { aggregateKey, localKey: e.message ?? '' };
}

interface AggregateRecord {
  localKeys: Set<string>;
  lastMs: number;
}

interface EventLog {
  count: number;
  firstTimestamp: string | null | undefined;
  name: string;
  resourceVersion: string | undefined;
}

export interface CorrelateResult {
  /** What to send: a new event, or the first one with its count, name and firstTimestamp. */
  event: Event;
  /** Set when the event repeats one already sent: PATCH it instead of a POST. */
  patch: EventPatch | undefined;
  /** The spam filter refused it: send nothing. */
  skip: boolean;
}

export interface EventCorrelator {
  correlate(event: Event): CorrelateResult;
  /** What the server stored (its name, resourceVersion and count) becomes the base of the next repeat. */
  updateState(event: Event): void;
}

export function createEventCorrelator(
  clock: Clock,
  nameEvent: (objectName: string, nowMs: number) => string,
  options: CorrelatorOptions = {},
): EventCorrelator {
  const o = { ...CORRELATOR_DEFAULTS, ...options };
  const aggregates = new LruCache<AggregateRecord>(o.lruCacheSize);
  const logs = new LruCache<EventLog>(o.lruCacheSize);
  const spam = new LruCache<TokenBucket>(o.lruCacheSize);

  // EventAggregate: the 10th distinct message of similar events within 10 minutes (and each one
  // after it) becomes one aggregate event, counted under the aggregate key.
  const aggregate = (event: Event): { event: Event; cacheKey: string } => {
    const now = clock.now();
    const { aggregateKey, localKey } = aggregateKeys(event);
    let record = aggregates.get(aggregateKey);
    if (record === undefined || now - record.lastMs > o.maxIntervalSeconds * 1000) record = { localKeys: new Set(), lastMs: now };
    record.localKeys.add(localKey);
    record.lastMs = now;
    aggregates.set(aggregateKey, record);
    if (record.localKeys.size < o.maxEvents) return { event, cacheKey: eventKey(event) };

    // Keep the set below the maximum, so that every new message aggregates again.
    const first = record.localKeys.values().next();
    if (first.done !== true) record.localKeys.delete(first.value);
    const combined = aggregateEvent(event, now, nameEvent(event.involvedObject.name ?? '', now));
    return { event: combined, cacheKey: aggregateKey };
  };

  // eventObserve: a repeat takes the first event's name, resourceVersion and firstTimestamp and
  // the next count, and is sent as a patch of count, lastTimestamp and message.
  const observe = (input: Event, cacheKey: string): { event: Event; patch: EventPatch | undefined } => {
    const event: Event = { ...input, metadata: { ...input.metadata } };
    const last = logs.get(cacheKey);
    let patch: EventPatch | undefined;
    if (last !== undefined && last.count > 0) {
      event.metadata.name = last.name;
      if (last.resourceVersion === undefined) delete event.metadata.resourceVersion;
      else event.metadata.resourceVersion = last.resourceVersion;
      event.firstTimestamp = last.firstTimestamp;
      event.count = last.count + 1;
      patch = { count: event.count, lastTimestamp: event.lastTimestamp ?? '' };
      if (event.message !== undefined && event.message !== '') patch.message = event.message;
    }
    logs.set(cacheKey, logOf(event));
    return { event, patch };
  };

  const filtered = (event: Event): boolean => {
    const k = spamKey(event);
    const bucket = spam.get(k) ?? createTokenBucket({ qps: o.qps, burst: o.burstSize, clock });
    spam.set(k, bucket);
    return !bucket.tryAccept();
  };

  return {
    correlate(newEvent) {
      const aggregated = aggregate(newEvent);
      const { event, patch } = observe(aggregated.event, aggregated.cacheKey);
      // As upstream, a filtered event still counts: its successor's count includes it.
      if (filtered(event)) return { event, patch, skip: true };
      return { event, patch, skip: false };
    },
    updateState(event) {
      logs.set(eventKey(event), logOf(event));
    },
  };
}

/** Upstream's aggregate carries only these fields: no annotations, no reporting fields. */
function aggregateEvent(event: Event, now: number, name: string): Event {
  const t = formatTime(now);
  const combined: Event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: event.metadata.namespace },
    involvedObject: event.involvedObject,
    reason: event.reason,
    message: AGGREGATED_MESSAGE_PREFIX + (event.message ?? ''),
    source: event.source,
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: event.type,
    eventTime: null,
    reportingComponent: '',
    reportingInstance: '',
  };
  if (combined.reason === undefined) delete combined.reason;
  return combined;
}

function logOf(event: Event): EventLog {
  return {
    count: event.count ?? 0,
    firstTimestamp: event.firstTimestamp,
    name: event.metadata.name,
    resourceVersion: event.metadata.resourceVersion,
  };
}
