import { RecordingLogger } from '@kubelet-ts/common/testing';
import { fixedSummary } from './internal/summary-fixture.test-helper.js';
import { createMetricsRegistry } from './registry.js';
import { createResourceMetricsCollector } from './resource-metrics.js';
import { FakeSummaryProvider } from './testing/index.js';

describe('createResourceMetricsCollector (/metrics/resource)', () => {
  it('renders a fixed summary as upstream’s resource metrics, with the measurement times as timestamps', async () => {
    const provider = new FakeSummaryProvider(fixedSummary());
    const registry = createMetricsRegistry();
    registry.register(createResourceMetricsCollector({ summaryProvider: provider }));
    const { body } = await registry.exposition();
    expect(body.split('\n')).toEqual([
      '# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the container in core-seconds',
      '# TYPE container_cpu_usage_seconds_total counter',
      'container_cpu_usage_seconds_total{container="nginx",pod="web",namespace="default"} 1 1767323045000',
      '# HELP container_memory_working_set_bytes [STABLE] Current working set of the container in bytes',
      '# TYPE container_memory_working_set_bytes gauge',
      'container_memory_working_set_bytes{container="nginx",pod="web",namespace="default"} 3072 1767323045000',
      'container_memory_working_set_bytes{container="sidecar",pod="web",namespace="default"} 1024 1767323045000',
      '# HELP container_start_time_seconds [STABLE] Start time of the container since unix epoch in seconds',
      '# TYPE container_start_time_seconds gauge',
      'container_start_time_seconds{container="nginx",pod="web",namespace="default"} 1767312001',
      'container_start_time_seconds{container="sidecar",pod="web",namespace="default"} 1767312002.5',
      '# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the node in core-seconds',
      '# TYPE node_cpu_usage_seconds_total counter',
      'node_cpu_usage_seconds_total 123.5 1767323045000',
      '# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in bytes',
      '# TYPE node_memory_working_set_bytes gauge',
      'node_memory_working_set_bytes 2000000000 1767323046000',
      '# HELP pod_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the pod in core-seconds',
      '# TYPE pod_cpu_usage_seconds_total counter',
      'pod_cpu_usage_seconds_total{pod="web",namespace="default"} 1.25 1767323045000',
      '# HELP pod_memory_working_set_bytes [STABLE] Current working set of the pod in bytes',
      '# TYPE pod_memory_working_set_bytes gauge',
      'pod_memory_working_set_bytes{pod="web",namespace="default"} 4096 1767323045000',
      '# HELP resource_scrape_error [STABLE] 1 if there was an error while getting container metrics, 0 otherwise',
      '# TYPE resource_scrape_error gauge',
      'resource_scrape_error 0',
      '# HELP scrape_error [ALPHA] (Deprecated since 1.29.0) 1 if there was an error while getting container metrics, 0 otherwise',
      '# TYPE scrape_error gauge',
      'scrape_error 0',
      '',
    ]);
    // The cached summary, as upstream's endpoint reads (no forced update on every scrape).
    expect(provider.calls).toEqual([undefined]);
  });

  it('answers only the scrape errors, set to 1, when the summary cannot be had', async () => {
    const provider = new FakeSummaryProvider(fixedSummary());
    provider.error = new Error('cri: deadline exceeded');
    const logger = new RecordingLogger();
    const registry = createMetricsRegistry();
    registry.register(createResourceMetricsCollector({ summaryProvider: provider, logger }));
    const lines = (await registry.exposition()).body.split('\n').filter((l) => !l.startsWith('#'));
    expect(lines).toEqual(['resource_scrape_error 1', 'scrape_error 1', '']);
    expect(logger.records.map((e) => [e.level, e.msg, e.fields['err']])).toEqual([
      ['error', 'Error getting summary for resourceMetric prometheus endpoint', 'cri: deadline exceeded'],
    ]);
  });
});
