import { DEFAULT_BUCKETS, noopMetrics } from './metrics.js';
import type { Metrics } from './metrics.js';
import { RecordingMetrics } from './testing/index.js';

/** What a library does with the metrics it is given. */
function recordSomething(metrics: Metrics): void {
  const relists = metrics.counter({ name: 'kubelet_pleg_relist_total', help: 'Relists.' });
  const ops = metrics.counter({ name: 'kubelet_runtime_operations_total', help: 'Runtime operations.', labelNames: ['operation_type'] });
  const running = metrics.gauge({ name: 'kubelet_running_pods', help: 'Running pods.' });
  const latency = metrics.histogram({
    name: 'kubelet_pleg_relist_duration_seconds',
    help: 'Relist duration.',
    labelNames: ['phase'],
    buckets: [0.1, 1],
  });
  relists.inc();
  relists.inc(2);
  ops.inc({ operation_type: 'create_container' });
  ops.inc({ operation_type: 'create_container' }, 3);
  ops.inc({ operation_type: 'stop_container' });
  running.set(5);
  running.inc();
  running.dec(2);
  latency.observe({ phase: 'list' }, 0.25);
  latency.observe({ phase: 'list' }, 0.5);
}

describe('noopMetrics', () => {
  it('hands out metrics that accept every update and record nothing', () => {
    expect(() => recordSomething(noopMetrics)).not.toThrow();
    const counter = noopMetrics.counter({ name: 'x_total', help: 'x', labelNames: ['a'] });
    expect(counter.inc({ a: '1' })).toBeUndefined();
    expect(counter.remove({ a: '1' })).toBeUndefined();
  });
});

describe('DEFAULT_BUCKETS', () => {
  it('are prometheus.DefBuckets', () => {
    expect(DEFAULT_BUCKETS).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  });
});

describe('RecordingMetrics', () => {
  it('records counters, gauges and histograms by label set', () => {
    const metrics = new RecordingMetrics();
    recordSomething(metrics);

    expect(metrics.value('kubelet_pleg_relist_total')).toBe(3);
    expect(metrics.value('kubelet_runtime_operations_total', { operation_type: 'create_container' })).toBe(4);
    expect(metrics.value('kubelet_runtime_operations_total', { operation_type: 'stop_container' })).toBe(1);
    expect(metrics.value('kubelet_runtime_operations_total', { operation_type: 'start_container' })).toBeUndefined();
    expect(metrics.value('kubelet_running_pods')).toBe(4);
    expect(metrics.observations('kubelet_pleg_relist_duration_seconds', { phase: 'list' })).toEqual([0.25, 0.5]);
    expect(metrics.value('kubelet_pleg_relist_duration_seconds', { phase: 'list' })).toBe(2);
    expect(metrics.buckets('kubelet_pleg_relist_duration_seconds')).toEqual([0.1, 1]);
    expect(metrics.kind('kubelet_running_pods')).toBe('gauge');
    expect(metrics.help('kubelet_pleg_relist_total')).toBe('Relists.');
    expect(metrics.names()).toEqual([
      'kubelet_pleg_relist_total',
      'kubelet_runtime_operations_total',
      'kubelet_running_pods',
      'kubelet_pleg_relist_duration_seconds',
    ]);
    expect(metrics.samples('kubelet_runtime_operations_total').map((s) => [s.labels, s.value])).toEqual([
      [{ operation_type: 'create_container' }, 4],
      [{ operation_type: 'stop_container' }, 1],
    ]);
  });

  it('gives the same metric to every caller of one name, as a Prometheus registry does', () => {
    const metrics = new RecordingMetrics();
    const a = metrics.counter({ name: 'evictions_total', help: 'Evictions.', labelNames: ['signal'] });
    const b = metrics.counter({ name: 'evictions_total', help: 'Evictions.', labelNames: ['signal'] });
    a.inc({ signal: 'memory.available' });
    b.inc({ signal: 'memory.available' });
    expect(b).toBe(a);
    expect(metrics.value('evictions_total', { signal: 'memory.available' })).toBe(2);
    expect(metrics.histogram({ name: 'sync_seconds', help: 'Syncs.' })).toBe(metrics.histogram({ name: 'sync_seconds', help: 'Syncs.' }));
    expect(metrics.buckets('sync_seconds')).toEqual(DEFAULT_BUCKETS);
  });

  it('refuses one name as two kinds or with two label sets', () => {
    const metrics = new RecordingMetrics();
    metrics.counter({ name: 'pods_total', help: 'x', labelNames: ['phase'] });
    expect(() => metrics.gauge({ name: 'pods_total', help: 'x', labelNames: ['phase'] })).toThrow('already a counter');
    expect(() => metrics.counter({ name: 'pods_total', help: 'x', labelNames: ['node'] })).toThrow('already a counter with labels [phase]');
  });

  it('refuses invalid metric and label names', () => {
    const metrics = new RecordingMetrics();
    expect(() => metrics.counter({ name: 'kubelet-pods', help: 'x' })).toThrow('invalid metric name');
    expect(() => metrics.counter({ name: 'ok_total', help: 'x', labelNames: ['pod-uid'] })).toThrow('invalid label name');
    expect(() => metrics.counter({ name: 'ok2_total', help: 'x', labelNames: ['__reserved'] })).toThrow('invalid label name');
    expect(() => metrics.counter({ name: 'ok3_total', help: 'x', labelNames: ['a', 'a'] })).toThrow('duplicate label names');
  });

  it('fails an update whose labels do not match the label names', () => {
    const metrics = new RecordingMetrics();
    const ops = metrics.counter({ name: 'ops_total', help: 'x', labelNames: ['operation_type', 'result'] });
    // The types refuse these too (typecheck runs over the tests); the fake catches untyped callers.
    // @ts-expect-error a label is missing
    expect(() => ops.inc({ operation_type: 'create' })).toThrow('do not match [operation_type, result]');
    // @ts-expect-error a label is not declared
    expect(() => ops.inc({ operation_type: 'create', result: 'ok', extra: 'x' })).toThrow('do not match');
    // @ts-expect-error a labelled metric needs its labels
    expect(() => ops.inc()).toThrow('do not match');
    expect(metrics.samples('ops_total')).toEqual([]);
  });

  it('fails a counter that would go down, and updates of the wrong kind', () => {
    const metrics = new RecordingMetrics();
    const counter = metrics.counter({ name: 'c_total', help: 'x' });
    expect(() => counter.inc(-1)).toThrow('cannot decrease');
    const asGauge = counter as unknown as { set(v: number): void };
    expect(() => asGauge.set(1)).toThrow('is a counter: no set');
  });

  it('removes the series that match partial labels, e.g. a stopped pod', () => {
    const metrics = new RecordingMetrics();
    const probes = metrics.counter({ name: 'prober_probe_total', help: 'x', labelNames: ['pod_uid', 'container'] });
    probes.inc({ pod_uid: 'a', container: 'app' });
    probes.inc({ pod_uid: 'a', container: 'sidecar' });
    probes.inc({ pod_uid: 'b', container: 'app' });
    probes.remove({ pod_uid: 'a' });
    expect(metrics.samples('prober_probe_total').map((s) => s.labels)).toEqual([{ pod_uid: 'b', container: 'app' }]);
  });

  it('identifies a series by its labels whatever their order', () => {
    const metrics = new RecordingMetrics();
    const h = metrics.histogram({ name: 'd_seconds', help: 'x', labelNames: ['a', 'b'] });
    h.observe({ a: '1', b: '2' }, 1);
    h.observe({ b: '2', a: '1' }, 2);
    expect(metrics.observations('d_seconds', { b: '2', a: '1' })).toEqual([1, 2]);
  });
});
