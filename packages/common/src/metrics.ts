/** One value per label name of a metric. */
export type Labels<L extends string> = Readonly<Record<L, string>>;

/** The arguments of an update: a metric without label names takes the value alone. */
export type MetricArgs<L extends string, V extends unknown[]> = [L] extends [never] ? V : [labels: Labels<L>, ...V];

interface Series<L extends string> {
  /** Drops every series whose labels include these (upstream DeletePartialMatch), e.g. a stopped pod's. */
  remove(labels: Partial<Labels<L>>): void;
}

/** Upstream prometheus.CounterVec: only goes up. */
export interface Counter<L extends string = never> extends Series<L> {
  inc(...args: MetricArgs<L, [value?: number]>): void;
}

/** Upstream prometheus.GaugeVec: a value that is set, or moves both ways. */
export interface Gauge<L extends string = never> extends Series<L> {
  set(...args: MetricArgs<L, [value: number]>): void;
  inc(...args: MetricArgs<L, [value?: number]>): void;
  dec(...args: MetricArgs<L, [value?: number]>): void;
}

/** Upstream prometheus.HistogramVec: observations counted into buckets (seconds for durations). */
export interface Histogram<L extends string = never> extends Series<L> {
  observe(...args: MetricArgs<L, [value: number]>): void;
}

export interface MetricOptions<L extends string> {
  /** Prometheus name, upstream's where one exists (`kubelet_pleg_relist_duration_seconds`). */
  name: string;
  help: string;
  labelNames?: readonly L[];
}

export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds, ascending; `DEFAULT_BUCKETS` when omitted. */
  buckets?: readonly number[];
}

/**
 * Where libraries record metrics. Each method gets or creates the metric of that name, as a
 * Prometheus registry does, so two callers asking for the same name share one metric. The
 * application chooses the implementation (a registry behind `/metrics` later); libraries default
 * to `noopMetrics`.
 */
export interface Metrics {
  counter<L extends string = never>(options: MetricOptions<L>): Counter<L>;
  gauge<L extends string = never>(options: MetricOptions<L>): Gauge<L>;
  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L>;
}

/** Prometheus' default histogram buckets (prometheus.DefBuckets), in seconds. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const noop = (): void => undefined;
const noopMetric = { inc: noop, dec: noop, set: noop, observe: noop, remove: noop };

/** Metrics that record nothing: the default of every library. */
export const noopMetrics: Metrics = {
  counter: () => noopMetric,
  gauge: () => noopMetric,
  histogram: () => noopMetric,
};
