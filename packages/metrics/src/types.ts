import type { Metrics } from '@kubelet-ts/common';

/** Prometheus text format 0.0.4, what upstream's legacyregistry handler answers by default. */
export const PROMETHEUS_TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A scrape's answer: the body and the `Content-Type` to send it with. */
export interface Exposition {
  contentType: string;
  body: string;
}

/** One sample of a family computed at scrape time (upstream NewLazyConstMetric). */
export interface Sample {
  labels?: Readonly<Record<string, string>>;
  value: number;
  /** Milliseconds since the epoch: when the figure was measured (upstream NewLazyMetricWithTimestamp). */
  timestampMs?: number;
}

/** A metric family computed at scrape time: counters and gauges, as upstream's custom collectors emit. */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: Sample[];
}

/**
 * Upstream metrics.StableCollector: computes families when scraped, so that series of containers and
 * pods that are gone vanish with them instead of leaking. A collector that throws fails the scrape.
 */
export interface Collector {
  collect(): MetricFamily[] | Promise<MetricFamily[]>;
}

/** A Prometheus registry behind common's `Metrics`, with scrape-time collectors and the text exposition. */
export interface MetricsRegistry extends Metrics {
  /** Adds a collector whose families are computed at each `exposition`. */
  register(collector: Collector): void;
  /** Every metric and collector in text format 0.0.4; rejects with a `MetricsError` ('COLLECT') when a collector fails. */
  exposition(): Promise<Exposition>;
}
