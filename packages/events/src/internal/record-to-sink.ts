// client-go tools/record event.go: recordToSink and recordEvent.
import { EventSchema, StatusReason, apiStatusOf, isAlreadyExists, isNotFound } from '@kubelet-ts/api';
import type { Event } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { Clock, LogFields, Logger } from '@kubelet-ts/common';
import { EventsError } from '../errors.js';
import type { EventSink } from '../types.js';
import type { EventCorrelator } from './correlator.js';

export interface SinkDelivery {
  sink: EventSink;
  correlator: EventCorrelator;
  clock: Clock;
  logger: Logger;
  random: () => number;
  sleepDurationMs: number;
  maxTriesPerEvent: number;
  /** Aborted by shutdown: no more sleeps, no more tries. */
  signal: AbortSignal;
}

/** Log fields naming an event, as upstream logs `"event", event`. */
export function eventFields(event: Event): LogFields {
  const o = event.involvedObject;
  return {
    event: `${event.metadata.namespace}/${event.metadata.name}`,
    object: o.namespace ? `${o.namespace}/${o.name ?? ''}` : (o.name ?? ''),
    kind: o.kind,
    reason: event.reason,
    count: event.count,
  };
}

const NAMESPACE_TERMINATING = 'NamespaceTerminating';

function hasStatusCause(err: unknown, type: string): boolean {
  const causes = (err as { details?: { causes?: unknown } } | null)?.details?.causes;
  return Array.isArray(causes) && causes.some((c) => (c as { type?: unknown } | null)?.type === type);
}

/**
 * Correlates one event and writes it, retrying while the server cannot be reached: up to
 * `maxTriesPerEvent` tries, `sleepDurationMs` apart, the first sleep randomized.
 */
export async function recordToSink(d: SinkDelivery, input: Event): Promise<void> {
  const result = d.correlator.correlate(structuredClone(input));
  if (result.skip) {
    d.logger.debug('Event dropped by the spam filter', eventFields(result.event));
    return;
  }
  for (let tries = 1; ; tries++) {
    if (await recordEvent(d, result.event, result.patch)) return;
    if (tries >= d.maxTriesPerEvent) {
      d.logger.error('Unable to write event (retry limit exceeded!)', eventFields(result.event));
      return;
    }
    // The first sleep is randomized so that clients do not all retry in step after an outage.
    const delay = tries === 1 ? d.sleepDurationMs * d.random() : d.sleepDurationMs;
    try {
      await d.clock.sleep(delay, d.signal);
    } catch {
      d.logger.error('Unable to write event (broadcaster is shut down)', eventFields(result.event));
      return;
    }
  }
}

/** One try. True when the event was written or must be abandoned, false when it is worth another. */
async function recordEvent(d: SinkDelivery, event: Event, patch: ReturnType<EventCorrelator['correlate']>['patch']): Promise<boolean> {
  let stored: unknown;
  let failure: { err: unknown } | undefined;
  const update = (event.count ?? 1) > 1 && patch !== undefined;
  if (update) {
    try {
      stored = await d.sink.patch(event.metadata.namespace, event.metadata.name, patch);
    } catch (err) {
      failure = { err };
    }
  }
  // The first event may be gone (deleted, or expired after the API server's event TTL): create it again.
  if (!update || (failure !== undefined && isNotFound(failure.err))) {
    delete event.metadata.resourceVersion;
    failure = undefined;
    try {
      stored = await d.sink.create(event);
    } catch (err) {
      failure = { err };
    }
  }
  if (failure === undefined) {
    d.correlator.updateState(storedEvent(d.logger, stored, event));
    return true;
  }
  return classify(d.logger, failure.err, event);
}

/** The server's copy of the event, or the one sent when the answer does not parse (logged). */
function storedEvent(logger: Logger, stored: unknown, sent: Event): Event {
  const parsed = EventSchema.safeParse(stored);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const err = new EventsError(
    'INVALID_EVENT',
    `the API server's event is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'unknown'}`,
  );
  logger.warn('Unable to read the stored event; counting from the event sent', { ...eventFields(sent), err: err.message });
  return sent;
}

/**
 * A server's answer other than 429 means the event itself is refused: drop it (upstream drops
 * every StatusError; its REST client has already retried 429s). No answer at all: retry.
 */
function classify(logger: Logger, err: unknown, event: Event): boolean {
  const status = apiStatusOf(err);
  if (status !== undefined && status.statusCode !== 429 && status.reason !== StatusReason.TooManyRequests) {
    const fields = { ...eventFields(event), statusCode: status.statusCode, err: errorMessage(err) };
    if (isAlreadyExists(err) || hasStatusCause(err, NAMESPACE_TERMINATING)) logger.debug('Server rejected event (will not retry!)', fields);
    else logger.error('Server rejected event (will not retry!)', fields);
    return true;
  }
  logger.error('Unable to write event (may retry after sleeping)', { ...eventFields(event), err: errorMessage(err) });
  return false;
}
