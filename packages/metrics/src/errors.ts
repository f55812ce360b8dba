import { defineError } from '@kubelet-ts/common';

export type MetricsErrorCode =
  /** A name asked for again as another kind or with other label names (upstream's registry refuses it too). */
  | 'CONFLICT'
  /** A metric or label name that Prometheus does not accept, or an update whose labels are not the metric's. */
  | 'INVALID'
  /** A scrape-time collector failed: the route answers 500 with the message. */
  | 'COLLECT';

/** The one error class of @kubelet-ts/metrics. */
export class MetricsError extends defineError<MetricsErrorCode>('MetricsError', { defaultCode: 'COLLECT' }) {}
