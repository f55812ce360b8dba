import { createMetricsRegistry } from './registry.js';
import { MetricsError } from './errors.js';
import { PROCESS_METRIC_NAMES } from './internal/process.js';
import { sampleLines } from './testing/index.js';
import { PROMETHEUS_TEXT_CONTENT_TYPE } from './types.js';

describe('createMetricsRegistry', () => {
  it('gives every caller of one name the same metric, as a Prometheus registry does', async () => {
    const registry = createMetricsRegistry();
    const a = registry.counter({ name: 'kubelet_evictions', help: 'Evictions.', labelNames: ['eviction_signal'] });
    const b = registry.counter({ name: 'kubelet_evictions', help: 'Evictions.', labelNames: ['eviction_signal'] });
    expect(b).toBe(a);
    a.inc({ eviction_signal: 'memory.available' });
    b.inc({ eviction_signal: 'memory.available' }, 2);
    const { body } = await registry.exposition();
    expect(sampleLines(body, 'kubelet_evictions')).toEqual(['kubelet_evictions{eviction_signal="memory.available"} 3']);
  });

  it('refuses a name asked for as another kind or with other label names, with a MetricsError', () => {
    const registry = createMetricsRegistry();
    registry.counter({ name: 'kubelet_runtime_operations_total', help: 'x', labelNames: ['operation_type'] });
    const asGauge = () => registry.gauge({ name: 'kubelet_runtime_operations_total', help: 'x', labelNames: ['operation_type'] });
    expect(asGauge).toThrow(MetricsError);
    expect(asGauge).toThrow('metric kubelet_runtime_operations_total is already a counter with labels [operation_type]; asked for a gauge');
    try {
      registry.counter({ name: 'kubelet_runtime_operations_total', help: 'x', labelNames: ['operation'] });
      throw new Error('not refused');
    } catch (err) {
      expect(MetricsError.is(err, 'CONFLICT')).toBe(true);
    }
    expect(() => registry.histogram({ name: 'kubelet_runtime_operations_total', help: 'x' })).toThrow('already a counter');
  });

  it('refuses invalid metric and label names, and names its collectors use', () => {
    const registry = createMetricsRegistry({ processMetrics: true });
    expect(() => registry.counter({ name: 'kubelet-pods', help: 'x' })).toThrow('invalid metric name');
    expect(() => registry.counter({ name: 'a_total', help: 'x', labelNames: ['pod-uid'] })).toThrow('invalid label name');
    expect(() => registry.counter({ name: 'b_total', help: 'x', labelNames: ['__name'] })).toThrow('invalid label name');
    expect(() => registry.counter({ name: 'c_total', help: 'x', labelNames: ['a', 'a'] })).toThrow('duplicate label names');
    expect(() => registry.gauge({ name: 'process_open_fds', help: 'x' })).toThrow(MetricsError);
  });

  it('fails updates whose labels are not exactly the label names, and counters that would go down', () => {
    const registry = createMetricsRegistry();
    const ops = registry.counter({ name: 'ops_total', help: 'x', labelNames: ['operation_type', 'result'] });
    // @ts-expect-error a label is missing
    expect(() => ops.inc({ operation_type: 'create' })).toThrow('do not match [operation_type, result]');
    // @ts-expect-error a label is not declared
    expect(() => ops.inc({ operation_type: 'create', result: 'ok', extra: 'x' })).toThrow('do not match');
    expect(() => ops.inc({ operation_type: 'create', result: 'ok' }, -1)).toThrow('cannot decrease');
  });

  it('removes every series whose labels include the given ones (upstream DeletePartialMatch)', async () => {
    const registry = createMetricsRegistry();
    const probes = registry.counter({ name: 'prober_probe_total', help: 'x', labelNames: ['pod_uid', 'container'] });
    const durations = registry.histogram({ name: 'd_seconds', help: 'x', labelNames: ['pod_uid'], buckets: [1] });
    probes.inc({ pod_uid: 'a', container: 'app' });
    probes.inc({ pod_uid: 'a', container: 'sidecar' });
    probes.inc({ pod_uid: 'b', container: 'app' });
    durations.observe({ pod_uid: 'a' }, 0.5);
    durations.observe({ pod_uid: 'b' }, 2);
    probes.remove({ pod_uid: 'a' });
    durations.remove({ pod_uid: 'a' });
    probes.remove({ pod_uid: 'zzz' });
    const { body } = await registry.exposition();
    expect(sampleLines(body, 'prober_probe_total')).toEqual(['prober_probe_total{pod_uid="b",container="app"} 1']);
    expect(sampleLines(body, 'd_seconds_count')).toEqual(['d_seconds_count{pod_uid="b"} 1']);
    // A removed series starts again from zero.
    probes.inc({ pod_uid: 'a', container: 'app' });
    expect(sampleLines((await registry.exposition()).body, 'prober_probe_total')).toContain(
      'prober_probe_total{pod_uid="a",container="app"} 1',
    );
  });

  it('renders counters, gauges and histograms in text format 0.0.4', async () => {
    const registry = createMetricsRegistry();
    registry.gauge({ name: 'kubelet_running_pods', help: 'Number of pods that have a running pod sandbox' }).set(3);
    const running = registry.gauge({ name: 'kubelet_running_containers', help: 'Number of containers', labelNames: ['container_state'] });
    running.set({ container_state: 'running' }, 4);
    running.inc({ container_state: 'exited' });
    running.dec({ container_state: 'running' });
    const h = registry.histogram({ name: 'kubelet_pod_start_duration_seconds', help: 'Starts "\\ \n', buckets: [0.5, 1] });
    h.observe(0.75);
    h.observe(3);
    const { contentType, body } = await registry.exposition();
    expect(contentType).toBe(PROMETHEUS_TEXT_CONTENT_TYPE);
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(body).toContain(
      '# HELP kubelet_running_pods Number of pods that have a running pod sandbox\n# TYPE kubelet_running_pods gauge\nkubelet_running_pods 3\n',
    );
    expect(sampleLines(body, 'kubelet_running_containers')).toEqual([
      'kubelet_running_containers{container_state="running"} 3',
      'kubelet_running_containers{container_state="exited"} 1',
    ]);
    expect(body).toContain(
      '# HELP kubelet_pod_start_duration_seconds Starts "\\\\ \\n\n# TYPE kubelet_pod_start_duration_seconds histogram\n',
    );
    expect(sampleLines(body, 'kubelet_pod_start_duration_seconds_bucket')).toEqual([
      'kubelet_pod_start_duration_seconds_bucket{le="0.5"} 0',
      'kubelet_pod_start_duration_seconds_bucket{le="1"} 1',
      'kubelet_pod_start_duration_seconds_bucket{le="+Inf"} 2',
    ]);
    expect(sampleLines(body, 'kubelet_pod_start_duration_seconds_sum')).toEqual(['kubelet_pod_start_duration_seconds_sum 3.75']);
  });

  it('adds collectors computed at scrape time, with sample timestamps, and fails the scrape when one fails', async () => {
    const registry = createMetricsRegistry();
    let value = 1;
    registry.register({
      collect: () => [
        { name: 'node_cpu_usage_seconds_total', help: 'h', type: 'counter', samples: [{ value: value++, timestampMs: 1_700_000_000_123 }] },
      ],
    });
    expect(sampleLines((await registry.exposition()).body, 'node_cpu_usage_seconds_total')).toEqual([
      'node_cpu_usage_seconds_total 1 1700000000123',
    ]);
    expect(sampleLines((await registry.exposition()).body, 'node_cpu_usage_seconds_total')).toEqual([
      'node_cpu_usage_seconds_total 2 1700000000123',
    ]);
    registry.register({
      collect: () => {
        throw new Error('summary unavailable');
      },
    });
    await expect(registry.exposition()).rejects.toThrow('collecting metrics failed: summary unavailable');
    await expect(registry.exposition()).rejects.toMatchObject({ code: 'COLLECT' });
  });

  it('refuses a collected family whose name a metric has', async () => {
    const registry = createMetricsRegistry();
    registry.gauge({ name: 'dup', help: 'x' });
    registry.register({ collect: () => [{ name: 'dup', help: 'x', type: 'gauge', samples: [{ value: 1 }] }] });
    await expect(registry.exposition()).rejects.toThrow('metric dup was collected twice');
  });

  it('gives upstream’s process metrics, build info and node name when asked', async () => {
    const registry = createMetricsRegistry({
      processMetrics: true,
      buildInfo: { gitVersion: 'v1.34.0-kubelet-ts.0.1.0' },
      nodeName: 'node-a',
    });
    const { body } = await registry.exposition();
    for (const name of PROCESS_METRIC_NAMES) expect(sampleLines(body, name)).toHaveLength(1);
    expect(body).toContain('# TYPE process_cpu_seconds_total counter');
    expect(body).not.toContain('nodejs_');
    expect(sampleLines(body, 'kubelet_node_name')).toEqual(['kubelet_node_name{node="node-a"} 1']);
    const [info] = sampleLines(body, 'kubernetes_build_info');
    expect(info).toMatch(
      /^kubernetes_build_info\{build_date="1970-01-01T00:00:00Z",compiler="node",git_commit="",git_tree_state="clean",git_version="v1.34.0-kubelet-ts.0.1.0",go_version="v\d+[^"]*",major="1",minor="34",platform="[a-z]+\/[a-z0-9]+"\} 1$/,
    );
    const rss = Number(sampleLines(body, 'process_resident_memory_bytes')[0]?.split(' ')[1]);
    expect(rss).toBeGreaterThan(1_000_000);
  });

  it('renders nothing for an empty registry', async () => {
    expect((await createMetricsRegistry().exposition()).body).toBe('');
  });
});
