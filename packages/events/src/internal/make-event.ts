import { DEFAULT_NAMESPACE, formatTime, generateEventName } from '@kubelet-ts/api';
import type { Event, EventSource } from '@kubelet-ts/api';
import type { EventType, ObjectReference } from '@kubelet-ts/common';

/**
 * Unix nanoseconds for event names, unique within one broadcaster: the clock has milliseconds
 * only, so two events of one millisecond get consecutive nanoseconds instead of one name.
 */
export function createNanoClock(): (ms: number) => bigint {
  let last = -1n;
  return (ms) => {
    const candidate = BigInt(Math.floor(ms)) * 1_000_000n;
    last = candidate > last ? candidate : last + 1n;
    return last;
  };
}

/** The reference as upstream serializes it: empty fields left out (omitempty). */
function involvedObject(ref: ObjectReference): Event['involvedObject'] {
  const out: Event['involvedObject'] = {};
  for (const key of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const) {
    const value = ref[key];
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
}

export interface NewEvent {
  ref: ObjectReference;
  type: EventType;
  reason: string;
  message: string;
  annotations: Record<string, string> | undefined;
  source: EventSource;
  name: string;
  nowMs: number;
}

/**
 * client-go recorder `makeEvent` + `generateEvent`: a core/v1 Event in the object's namespace
 * (`default` for cluster-scoped objects such as the Node), count 1, both timestamps now,
 * reportingComponent/reportingInstance from the source, eventTime null (legacy validation).
 */
export function makeEvent(e: NewEvent): Event {
  const t = formatTime(e.nowMs);
  const metadata: Event['metadata'] = { name: e.name, namespace: e.ref.namespace || DEFAULT_NAMESPACE };
  if (e.annotations !== undefined) metadata.annotations = { ...e.annotations };
  const event: Event = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata,
    involvedObject: involvedObject(e.ref),
    source: sourceOf(e.source),
    firstTimestamp: t,
    lastTimestamp: t,
    count: 1,
    type: e.type,
    eventTime: null,
    reportingComponent: e.source.component ?? '',
    reportingInstance: e.source.host ?? '',
  };
  if (e.reason !== '') event.reason = e.reason;
  if (e.message !== '') event.message = e.message;
  return event;
}

export function sourceOf(source: EventSource | undefined): EventSource {
  const out: EventSource = {};
  if (source?.component) out.component = source.component;
  if (source?.host) out.host = source.host;
  return out;
}

/** Names a new event after its object (see @kubelet-ts/api `generateEventName`). */
export function eventNamer(): (objectName: string, nowMs: number) => string {
  const nanos = createNanoClock();
  return (objectName, nowMs) => generateEventName(objectName, nanos(nowMs));
}
