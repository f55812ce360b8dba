import { DEFAULT_BUCKETS } from '../metrics.js';
import type { Counter, Gauge, Histogram, HistogramOptions, MetricOptions, Metrics } from '../metrics.js';

export type MetricKind = 'counter' | 'gauge' | 'histogram';

export interface MetricSample {
  labels: Record<string, string>;
  /** Counters and gauges: the value. Histograms: the number of observations. */
  value: number;
  /** Histograms only: every observed value, in order. */
  observations: number[];
}

interface Family {
  kind: MetricKind;
  help: string;
  labelNames: readonly string[];
  buckets: readonly number[];
  series: Map<string, MetricSample>;
  metric: Counter<string> & Gauge<string> & Histogram<string>;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Metrics kept in memory for assertions. Strict where a Prometheus registry is strict, so
 * that a test fails on what would break `/metrics`: invalid names, one name registered as two
 * kinds or with two label sets, updates with missing or extra labels, counters going down.
 */
export class RecordingMetrics implements Metrics {
  readonly #families = new Map<string, Family>();

  counter<L extends string = never>(options: MetricOptions<L>): Counter<L> {
    return this.#family('counter', options).metric as unknown as Counter<L>;
  }

  gauge<L extends string = never>(options: MetricOptions<L>): Gauge<L> {
    return this.#family('gauge', options).metric as unknown as Gauge<L>;
  }

  histogram<L extends string = never>(options: HistogramOptions<L>): Histogram<L> {
    return this.#family('histogram', options, options.buckets ?? DEFAULT_BUCKETS).metric as unknown as Histogram<L>;
  }

  /** The names of every metric asked for, in the order they were first asked for. */
  names(): string[] {
    return [...this.#families.keys()];
  }

  kind(name: string): MetricKind | undefined {
    return this.#families.get(name)?.kind;
  }

  help(name: string): string | undefined {
    return this.#families.get(name)?.help;
  }

  /** A histogram's upper bounds. */
  buckets(name: string): readonly number[] | undefined {
    return this.#families.get(name)?.buckets;
  }

  /** Every series of a metric (copies). */
  samples(name: string): MetricSample[] {
    return [...(this.#families.get(name)?.series.values() ?? [])].map((s) => ({
      ...s,
      labels: { ...s.labels },
      observations: [...s.observations],
    }));
  }

  /** A counter's or gauge's value (a histogram's count) for these labels; undefined before the first update. */
  value(name: string, labels: Record<string, string> = {}): number | undefined {
    return this.#families.get(name)?.series.get(seriesKey(labels))?.value;
  }

  /** A histogram's observations for these labels, in order. */
  observations(name: string, labels: Record<string, string> = {}): number[] {
    return [...(this.#families.get(name)?.series.get(seriesKey(labels))?.observations ?? [])];
  }

  #family(kind: MetricKind, options: MetricOptions<string>, buckets: readonly number[] = []): Family {
    const labelNames = options.labelNames ?? [];
    const existing = this.#families.get(options.name);
    if (existing !== undefined) {
      if (existing.kind !== kind || existing.labelNames.join(',') !== labelNames.join(',')) {
        throw new Error(`metric ${options.name} is already a ${existing.kind} with labels [${existing.labelNames.join(', ')}]`);
      }
      return existing;
    }
    if (!METRIC_NAME.test(options.name)) throw new Error(`invalid metric name ${JSON.stringify(options.name)}`);
    const bad = labelNames.find((l) => !LABEL_NAME.test(l) || l.startsWith('__'));
    if (bad !== undefined) throw new Error(`metric ${options.name}: invalid label name ${JSON.stringify(bad)}`);
    if (new Set(labelNames).size !== labelNames.length) throw new Error(`metric ${options.name}: duplicate label names`);
    const family: Family = { kind, help: options.help, labelNames, buckets, series: new Map(), metric: undefined as never };
    family.metric = this.#metricOf(options.name, family);
    this.#families.set(options.name, family);
    return family;
  }

  #metricOf(name: string, family: Family): Family['metric'] {
    const labelled = family.labelNames.length > 0;
    const sample = (args: unknown[]): [MetricSample, number | undefined] => {
      const given: unknown = labelled ? args[0] : {};
      const labels = (typeof given === 'object' && given !== null ? given : {}) as Record<string, string>;
      const value = (labelled ? args[1] : args[0]) as number | undefined;
      const names = Object.keys(labels);
      if (names.length !== family.labelNames.length || family.labelNames.some((l) => typeof labels[l] !== 'string')) {
        throw new Error(`metric ${name}: labels [${names.join(', ')}] do not match [${family.labelNames.join(', ')}]`);
      }
      if (value !== undefined && typeof value !== 'number') throw new Error(`metric ${name}: value ${String(value)} is not a number`);
      const key = seriesKey(labels);
      let s = family.series.get(key);
      if (s === undefined) {
        s = { labels: { ...labels }, value: 0, observations: [] };
        family.series.set(key, s);
      }
      return [s, value];
    };
    const add =
      (sign: 1 | -1) =>
      (...args: unknown[]): void => {
        const [s, value = 1] = sample(args);
        if (family.kind === 'counter' && value < 0) throw new Error(`counter ${name} cannot decrease`);
        s.value += sign * value;
      };
    const only =
      (kinds: MetricKind[], what: string, fn: (...args: unknown[]) => void) =>
      (...args: unknown[]): void => {
        if (!kinds.includes(family.kind)) throw new Error(`metric ${name} is a ${family.kind}: no ${what}`);
        fn(...args);
      };
    return {
      inc: only(['counter', 'gauge'], 'inc', add(1)),
      dec: only(['gauge'], 'dec', add(-1)),
      set: only(['gauge'], 'set', (...args) => {
        const [s, value] = sample(args);
        s.value = required(name, value);
      }),
      observe: only(['histogram'], 'observe', (...args) => {
        const [s, value] = sample(args);
        s.observations.push(required(name, value));
        s.value = s.observations.length;
      }),
      remove: (labels: Partial<Record<string, string>>) => {
        for (const [key, s] of family.series) {
          if (Object.entries(labels).every(([k, v]) => s.labels[k] === v)) family.series.delete(key);
        }
      },
    };
  }
}

function required(name: string, value: number | undefined): number {
  if (value === undefined) throw new Error(`metric ${name}: no value`);
  return value;
}

/** A label set's identity, independent of key order. */
function seriesKey(labels: Record<string, string>): string {
  return JSON.stringify(
    Object.keys(labels)
      .sort()
      .map((k) => [k, labels[k]]),
  );
}
