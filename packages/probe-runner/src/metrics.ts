import type { Counter, Histogram, Metrics } from '@kubelet-ts/common';

/** Upstream metric labels of prober_probe_total. */
export interface ProbeTotalLabels {
  probe_type: 'Liveness' | 'Readiness' | 'Startup';
  result: 'successful' | 'failed' | 'unknown';
  container: string;
  pod: string;
  namespace: string;
  pod_uid: string;
}

/** Upstream labels of prober_probe_duration_seconds. */
export interface ProbeDurationLabels {
  probe_type: 'Liveness' | 'Readiness' | 'Startup';
  container: string;
  pod: string;
  namespace: string;
}

export interface CounterSample<L> {
  labels: L;
  value: number;
}

export interface HistogramSample<L> {
  labels: L;
  /** Upper bounds in seconds, ascending; `counts[i]` is the cumulative count of observations ≤ `buckets[i]`. */
  buckets: readonly number[];
  counts: number[];
  sum: number;
  count: number;
}

/** The prober's metrics as plain data (a Prometheus text formatter renders them later). */
export interface ProberMetrics {
  /** `prober_probe_total`: probe runs by type, result and container. */
  probeTotal: Array<CounterSample<ProbeTotalLabels>>;
  /** `prober_probe_duration_seconds`: durations of successful and failed runs. */
  probeDuration: Array<HistogramSample<ProbeDurationLabels>>;
  /** Scheduled probe runs skipped because the previous run was still going (kubelet-ts extension). */
  missedRuns: number;
  /** Probes running and waiting for a slot right now. */
  activeProbes: number;
  waitingProbes: number;
}

/** Prometheus' default buckets, as upstream's histogram. */
export const DURATION_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Upstream prober_manager.go's metric names. */
export const PROBER_PROBE_TOTAL = 'prober_probe_total';
export const PROBER_PROBE_DURATION_SECONDS = 'prober_probe_duration_seconds';

/**
 * Counters keyed by their label set, also recorded through common's `Metrics` (upstream's ProberResults and
 * ProberDuration). Internal to the manager; `snapshot` copies.
 */
export class MetricsRegistry {
  readonly #totals = new Map<string, CounterSample<ProbeTotalLabels>>();
  readonly #durations = new Map<string, HistogramSample<ProbeDurationLabels>>();
  readonly #probeTotal: Counter<keyof ProbeTotalLabels>;
  readonly #probeDuration: Histogram<keyof ProbeDurationLabels>;
  missedRuns = 0;

  constructor(metrics: Metrics) {
    this.#probeTotal = metrics.counter<keyof ProbeTotalLabels>({
      name: PROBER_PROBE_TOTAL,
      help: '[BETA] Cumulative number of a liveness, readiness or startup probe for a container by result.',
      labelNames: ['probe_type', 'result', 'container', 'pod', 'namespace', 'pod_uid'],
    });
    this.#probeDuration = metrics.histogram<keyof ProbeDurationLabels>({
      name: PROBER_PROBE_DURATION_SECONDS,
      help: '[ALPHA] Duration in seconds for a probe response.',
      labelNames: ['probe_type', 'container', 'pod', 'namespace'],
      buckets: DURATION_BUCKETS,
    });
  }

  inc(labels: ProbeTotalLabels): void {
    this.#probeTotal.inc(labels);
    const key = JSON.stringify(labels);
    const sample = this.#totals.get(key);
    if (sample === undefined) this.#totals.set(key, { labels, value: 1 });
    else sample.value++;
  }

  observe(labels: ProbeDurationLabels, seconds: number): void {
    this.#probeDuration.observe(labels, seconds);
    const key = JSON.stringify(labels);
    let sample = this.#durations.get(key);
    if (sample === undefined) {
      sample = { labels, buckets: DURATION_BUCKETS, counts: DURATION_BUCKETS.map(() => 0), sum: 0, count: 0 };
      this.#durations.set(key, sample);
    }
    sample.sum += seconds;
    sample.count++;
    DURATION_BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) sample.counts[i] = (sample.counts[i] ?? 0) + 1;
    });
  }

  /** Drops every series of one container's probe (upstream deletes them when the worker stops). */
  forget(probeType: ProbeTotalLabels['probe_type'], podUID: string, container: string, pod: string, namespace: string): void {
    this.#probeTotal.remove({ probe_type: probeType, pod_uid: podUID, container });
    this.#probeDuration.remove({ probe_type: probeType, container, pod, namespace });
    for (const [key, s] of this.#totals) {
      if (s.labels.probe_type === probeType && s.labels.pod_uid === podUID && s.labels.container === container) this.#totals.delete(key);
    }
    for (const [key, s] of this.#durations) {
      const l = s.labels;
      if (l.probe_type === probeType && l.container === container && l.pod === pod && l.namespace === namespace)
        this.#durations.delete(key);
    }
  }

  snapshot(activeProbes: number, waitingProbes: number): ProberMetrics {
    return {
      probeTotal: [...this.#totals.values()].map((s) => ({ labels: { ...s.labels }, value: s.value })),
      probeDuration: [...this.#durations.values()].map((s) => ({ ...s, labels: { ...s.labels }, counts: [...s.counts] })),
      missedRuns: this.missedRuns,
      activeProbes,
      waitingProbes,
    };
  }
}
