import type { Counter, Gauge, Histogram, HistogramOptions, Labels, MetricOptions } from '@kubelet-ts/common';
import { DEFAULT_BUCKETS, errorMessage } from '@kubelet-ts/common';
import { Counter as PromCounter, Gauge as PromGauge, Histogram as PromHistogram, Registry } from 'prom-client';
import { MetricsError } from './errors.js';
import { processCollector, PROCESS_METRIC_NAMES } from './internal/process.js';
import { renderFamilies } from './internal/text-format.js';
import type { Collector, MetricFamily, MetricsRegistry } from './types.js';
import { PROMETHEUS_TEXT_CONTENT_TYPE } from './types.js';

/** What `kubernetes_build_info` is labelled with; `major` and `minor` come from `gitVersion`. */
export interface BuildInfo {
  /** `v1.34.0-kubelet-ts.0.1.0`. */
  gitVersion: string;
  gitCommit?: string;
  /** `clean` or `dirty`; default `clean`. */
  gitTreeState?: string;
  /** RFC 3339; default `1970-01-01T00:00:00Z` (upstream's value when unset). */
  buildDate?: string;
  /** Default `<process.platform>/<GOARCH>` of this process (`linux/amd64`). */
  platform?: string;
}

export interface MetricsRegistryOptions {
  /**
   * Upstream's process collector: `process_cpu_seconds_total`, `process_resident_memory_bytes`,
   * `process_virtual_memory_bytes`, `process_start_time_seconds`, `process_open_fds`, `process_max_fds`,
   * read when scraped. Default false (the probes registry has none, as upstream).
   */
  processMetrics?: boolean;
  /** Adds `kubernetes_build_info` (value 1) with these labels. */
  buildInfo?: BuildInfo;
  /** Adds `kubelet_node_name{node}` (value 1), as upstream's kubelet does. */
  nodeName?: string;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Kind = 'counter' | 'gauge' | 'histogram';

interface Entry {
  kind: Kind;
  labelNames: readonly string[];
  metric: unknown;
}

type PromMetric = PromCounter<string> | PromGauge<string> | PromHistogram<string>;

function validate(name: string, labelNames: readonly string[]): void {
  if (!METRIC_NAME.test(name)) throw new MetricsError('INVALID', `invalid metric name ${JSON.stringify(name)}`);
  for (const label of labelNames) {
    if (!LABEL_NAME.test(label) || label.startsWith('__')) {
      throw new MetricsError('INVALID', `invalid label name ${JSON.stringify(label)} of metric ${name}`);
    }
  }
  if (new Set(labelNames).size !== labelNames.length) throw new MetricsError('INVALID', `duplicate label names in metric ${name}`);
}

/**
 * One metric's series, kept by label set so that `remove` can match part of the labels
 * (upstream DeletePartialMatch; prom-client only removes an exact label set).
 */
class SeriesTracker {
  readonly #name: string;
  readonly #labelNames: readonly string[];
  readonly #prom: PromMetric;
  readonly #series = new Map<string, Record<string, string>>();

  constructor(name: string, labelNames: readonly string[], prom: PromMetric) {
    this.#name = name;
    this.#labelNames = labelNames;
    this.#prom = prom;
  }

  /** Checks that `labels` names exactly the metric's labels (upstream panics on a wrong cardinality), and records the series. */
  track(labels: unknown): Record<string, string> {
    const given = (typeof labels === 'object' && labels !== null ? labels : {}) as Record<string, unknown>;
    const keys = Object.keys(given);
    const ok = keys.length === this.#labelNames.length && this.#labelNames.every((n) => typeof given[n] === 'string');
    if (!ok) {
      throw new MetricsError(
        'INVALID',
        `labels {${keys.join(', ')}} of metric ${this.#name} do not match [${this.#labelNames.join(', ')}]`,
      );
    }
    const values = given as Record<string, string>;
    const key = this.#labelNames.map((n) => values[n]).join('\u0000');
    if (!this.#series.has(key)) this.#series.set(key, { ...values });
    return values;
  }

  remove(partial: Readonly<Record<string, string | undefined>>): void {
    const wanted = Object.entries(partial).filter((e): e is [string, string] => e[1] !== undefined);
    for (const [key, labels] of this.#series) {
      if (wanted.every(([k, v]) => labels[k] === v)) {
        this.#prom.remove(labels);
        this.#series.delete(key);
      }
    }
  }
}

/** Splits `MetricArgs`: a metric without labels takes the value alone, one with labels takes them first. */
function split(labelled: boolean, args: unknown[]): { labels: unknown; value: number | undefined } {
  return labelled ? { labels: args[0], value: args[1] as number | undefined } : { labels: undefined, value: args[0] as number | undefined };
}

/**
 * The kubelet's Prometheus registry (prom-client underneath): every library records through it as
 * common's `Metrics`; `exposition` renders it with its collectors in text format 0.0.4.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions = {}): MetricsRegistry {
  const registry = new Registry();
  const entries = new Map<string, Entry>();
  const collectors: Collector[] = [];
  const reserved = new Set<string>();

  const getOrCreate = <T>(kind: Kind, opts: MetricOptions<string>, make: (labelNames: string[]) => T): T => {
    const labelNames = [...(opts.labelNames ?? [])];
    const existing = entries.get(opts.name);
    if (existing !== undefined) {
      const sameLabels = existing.labelNames.length === labelNames.length && existing.labelNames.every((n, i) => n === labelNames[i]);
      if (existing.kind !== kind || !sameLabels) {
        throw new MetricsError(
          'CONFLICT',
          `metric ${opts.name} is already a ${existing.kind} with labels [${existing.labelNames.join(', ')}]; asked for a ${kind} with [${labelNames.join(', ')}]`,
        );
      }
      return existing.metric as T;
    }
    validate(opts.name, labelNames);
    if (reserved.has(opts.name)) throw new MetricsError('CONFLICT', `metric ${opts.name} is already collected by the registry`);
    const metric = make(labelNames);
    entries.set(opts.name, { kind, labelNames, metric });
    return metric;
  };

  const counter = <L extends string = never>(opts: MetricOptions<L>): Counter<L> =>
    getOrCreate('counter', opts, (labelNames) => {
      const prom = new PromCounter({ name: opts.name, help: opts.help, labelNames, registers: [registry] });
      const series = new SeriesTracker(opts.name, labelNames, prom);
      const labelled = labelNames.length > 0;
      return {
        inc(...args: unknown[]) {
          const { labels, value } = split(labelled, args);
          if (value !== undefined && !(value >= 0)) throw new MetricsError('INVALID', `counter ${opts.name} cannot decrease (${value})`);
          if (labelled) prom.inc(series.track(labels), value ?? 1);
          else prom.inc(value ?? 1);
        },
        remove: (labels: Partial<Labels<L>>) => series.remove(labels),
      } as Counter<L>;
    });

  const gauge = <L extends string = never>(opts: MetricOptions<L>): Gauge<L> =>
    getOrCreate('gauge', opts, (labelNames) => {
      const prom = new PromGauge({ name: opts.name, help: opts.help, labelNames, registers: [registry] });
      const series = new SeriesTracker(opts.name, labelNames, prom);
      const labelled = labelNames.length > 0;
      const update =
        (op: 'set' | 'inc' | 'dec', fallback: number | undefined) =>
        (...args: unknown[]) => {
          const { labels, value } = split(labelled, args);
          const v = value ?? fallback;
          if (v === undefined) throw new MetricsError('INVALID', `gauge ${opts.name}: set needs a value`);
          if (labelled) prom[op](series.track(labels), v);
          else prom[op](v);
        };
      return {
        set: update('set', undefined),
        inc: update('inc', 1),
        dec: update('dec', 1),
        remove: (labels: Partial<Labels<L>>) => series.remove(labels),
      } as Gauge<L>;
    });

  const histogram = <L extends string = never>(opts: HistogramOptions<L>): Histogram<L> =>
    getOrCreate('histogram', opts, (labelNames) => {
      const buckets = [...(opts.buckets ?? DEFAULT_BUCKETS)];
      const prom = new PromHistogram({ name: opts.name, help: opts.help, labelNames, buckets, registers: [registry] });
      const series = new SeriesTracker(opts.name, labelNames, prom);
      const labelled = labelNames.length > 0;
      return {
        observe(...args: unknown[]) {
          const { labels, value } = split(labelled, args);
          if (typeof value !== 'number') throw new MetricsError('INVALID', `histogram ${opts.name}: observe needs a value`);
          if (labelled) prom.observe(series.track(labels), value);
          else prom.observe(value);
        },
        remove: (labels: Partial<Labels<L>>) => series.remove(labels),
      } as Histogram<L>;
    });

  const register = (collector: Collector): void => {
    collectors.push(collector);
  };

  if (options.processMetrics === true) {
    for (const name of PROCESS_METRIC_NAMES) reserved.add(name);
    register(processCollector());
  }
  if (options.buildInfo !== undefined) {
    const labels = buildInfoLabels(options.buildInfo);
    gauge<keyof typeof labels>({
      name: 'kubernetes_build_info',
      help: "[ALPHA] A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.",
      labelNames: Object.keys(labels) as Array<keyof typeof labels>,
    }).set(labels, 1);
  }
  if (options.nodeName !== undefined) {
    gauge<'node'>({ name: 'kubelet_node_name', help: "[ALPHA] The node's name. The count is always 1.", labelNames: ['node'] }).set(
      { node: options.nodeName },
      1,
    );
  }

  return {
    counter,
    gauge,
    histogram,
    register,
    async exposition() {
      const families: MetricFamily[] = [];
      for (const collector of collectors) {
        try {
          families.push(...(await collector.collect()));
        } catch (err) {
          throw MetricsError.from(err, 'COLLECT', `collecting metrics failed: ${errorMessage(err)}`);
        }
      }
      const seen = new Set(entries.keys());
      for (const family of families) {
        if (seen.has(family.name)) throw new MetricsError('COLLECT', `metric ${family.name} was collected twice`);
        seen.add(family.name);
      }
      const registered = entries.size === 0 ? '' : await registry.metrics();
      return { contentType: PROMETHEUS_TEXT_CONTENT_TYPE, body: registered + renderFamilies(families) };
    },
  };
}

/** Upstream's build info labels, in its order; ours are the kubelet-ts version and this Node.js. */
function buildInfoLabels(info: BuildInfo): Record<string, string> {
  const match = /^v?(\d+)\.(\d+)/.exec(info.gitVersion);
  const arch = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm' } as Record<string, string>)[process.arch] ?? process.arch;
  return {
    build_date: info.buildDate ?? '1970-01-01T00:00:00Z',
    compiler: 'node',
    git_commit: info.gitCommit ?? '',
    git_tree_state: info.gitTreeState ?? 'clean',
    git_version: info.gitVersion,
    go_version: process.version,
    major: match?.[1] ?? '',
    minor: match?.[2] ?? '',
    platform: info.platform ?? `${process.platform}/${arch}`,
  };
}
