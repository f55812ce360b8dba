// core/v1 Event, the legacy event type the kubelet records (client-go tools/record), and the
// upstream rule that names a new event. Loose objects, as the other schemas: unknown fields are kept.
import { z } from 'zod';
import { dns1123Subdomain } from './internal/names.js';
import { int, str, stringMap } from './schemas/primitives.js';

/** Upstream v1.ObjectReference: every field optional, as the API serves it. */
export const ObjectReferenceSchema = z.looseObject({
  kind: str.optional(),
  namespace: str.optional(),
  name: str.optional(),
  uid: str.optional(),
  apiVersion: str.optional(),
  resourceVersion: str.optional(),
  fieldPath: str.optional(),
});

/** Upstream v1.EventSource: who reported the event (`kubelet` on `<node>`). */
export const EventSourceSchema = z.looseObject({ component: str.optional(), host: str.optional() });
export type EventSource = z.infer<typeof EventSourceSchema>;

const EventMetaSchema = z.looseObject({
  name: str,
  namespace: str,
  uid: str.optional(),
  resourceVersion: str.optional(),
  creationTimestamp: str.optional(),
  annotations: stringMap.optional(),
});

/**
 * core/v1 Event. `firstTimestamp`/`lastTimestamp` are metav1.Time (RFC 3339, seconds); `eventTime`
 * is MicroTime and stays null for the legacy recorder, which makes the API server validate the event
 * the legacy way (`involvedObject.namespace` equal to the event's namespace).
 */
export const EventSchema = z.looseObject({
  apiVersion: str.optional(),
  kind: str.optional(),
  metadata: EventMetaSchema,
  involvedObject: ObjectReferenceSchema,
  reason: str.optional(),
  message: str.optional(),
  source: EventSourceSchema.optional(),
  firstTimestamp: str.nullable().optional(),
  lastTimestamp: str.nullable().optional(),
  count: int.optional(),
  type: str.optional(),
  eventTime: str.nullable().optional(),
  action: str.optional(),
  reportingComponent: str.optional(),
  reportingInstance: str.optional(),
});
export type Event = z.infer<typeof EventSchema>;

/**
 * The name of a new event (client-go record/util `GenerateEventName`): `<object name>.<unix nanos in hex>`,
 * or a random UUID when that is not a valid DNS subdomain (an object name with capitals, a name too long).
 */
export function generateEventName(
  objectName: string,
  unixNanos: bigint,
  uuid: () => string = () => globalThis.crypto.randomUUID(),
): string {
  const name = `${objectName}.${unixNanos.toString(16)}`;
  return dns1123Subdomain(name).length === 0 ? name : uuid();
}
