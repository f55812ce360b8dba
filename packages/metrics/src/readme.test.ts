// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { fixedSummary } from './internal/summary-fixture.test-helper.js';
import { createMetricsRegistry, createResourceMetricsCollector } from './index.js';
import { FakeSummaryProvider } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const summaryProvider = new FakeSummaryProvider(fixedSummary()); // the kubelet's: @kubelet-ts/stats

    // README:begin
    const buildInfo = { gitVersion: 'v1.34.0-kubelet-ts.0.1.0' };
    const registry = createMetricsRegistry({ processMetrics: true, buildInfo, nodeName: 'node-a' });
    // Libraries take it as common's Metrics: get-or-create by name, as a Prometheus registry.
    const evictions = registry.counter({ name: 'kubelet_evictions', help: 'Evictions.', labelNames: ['eviction_signal'] });
    evictions.inc({ eviction_signal: 'memory.available' });

    // /metrics/resource: its own registry, computed from the Summary at each scrape.
    const resource = createMetricsRegistry();
    resource.register(createResourceMetricsCollector({ summaryProvider }));

    const { contentType, body } = await registry.exposition(); // 'text/plain; version=0.0.4; charset=utf-8'
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(body).toContain('kubelet_evictions{eviction_signal="memory.available"} 1');
    expect((await resource.exposition()).body).toContain('node_cpu_usage_seconds_total 123.5 1767323045000');
  });
});
