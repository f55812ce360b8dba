import type { Event } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';

/** upstream StartStructuredLogging: one "Event occurred" record per event. */
export function logEvent(logger: Logger, level: 'debug' | 'info', e: Event): void {
  const o = e.involvedObject;
  logger[level]('Event occurred', {
    object: o.namespace ? `${o.namespace}/${o.name ?? ''}` : (o.name ?? ''),
    fieldPath: o.fieldPath ?? '',
    kind: o.kind ?? '',
    apiVersion: o.apiVersion ?? '',
    type: e.type,
    reason: e.reason ?? '',
    message: e.message ?? '',
  });
}
