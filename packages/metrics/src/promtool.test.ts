// Prometheus' own linter over everything kubelet-ts exposes: `promtool check metrics` (Debian's prometheus
// package, installed by scripts/test-runtime.sh install). Missing promtool fails the test: it must run in CI.
import { spawnSync } from 'node:child_process';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createCadvisorCollector } from './cadvisor-metrics.js';
import { CATALOG } from './internal/catalog.test-helper.js';
import { fixedSummary } from './internal/summary-fixture.test-helper.js';
import { createMetricsRegistry } from './registry.js';
import { createResourceMetricsCollector } from './resource-metrics.js';
import { FakeSummaryProvider } from './testing/index.js';
import type { MetricsRegistry } from './types.js';

/** Runs `promtool check metrics` on the text; its problems, one per line ([] when it found none). */
function promtool(text: string): { status: number | null; problems: string[] } {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 20_000 });
  if (run.error !== undefined) {
    throw new Error(`promtool could not run (${run.error.message}): install it with scripts/test-runtime.sh install (Debian's prometheus)`);
  }
  const problems = `${run.stdout}\n${run.stderr}`.split('\n').filter((l) => l.trim() !== '');
  return { status: run.status, problems };
}

/** A registry with every catalogued metric, each with one sample. */
function fedRegistry(): MetricsRegistry {
  const registry = createMetricsRegistry({
    processMetrics: true,
    buildInfo: { gitVersion: 'v1.34.0-kubelet-ts.0.1.0' },
    nodeName: 'node-a',
  });
  for (const entry of CATALOG) {
    const labels = Object.fromEntries(entry.labelNames.map((l) => [l, `v-${l}`]));
    const labelled = entry.labelNames.length > 0;
    const options = { name: entry.name, help: `Help of ${entry.name}.`, labelNames: entry.labelNames as string[] };
    if (entry.kind === 'counter') {
      const c = registry.counter<string>(options);
      if (labelled) c.inc(labels, 2);
      else (c as unknown as { inc(v: number): void }).inc(2);
    } else if (entry.kind === 'gauge') {
      const g = registry.gauge<string>(options);
      if (labelled) g.set(labels, 3);
      else (g as unknown as { set(v: number): void }).set(3);
    } else {
      const h = registry.histogram<string>(options);
      if (labelled) h.observe(labels, 0.3);
      else (h as unknown as { observe(v: number): void }).observe(0.3);
    }
  }
  return registry;
}

/** Every documented `<name> <problem>` line promtool prints for upstream's own names. */
const exceptions = new Set(CATALOG.flatMap((e) => [e.upstreamLintException ?? []].flat().map((why) => `${e.name} ${why}`)));

/** promtool's problems less the documented ones of upstream's own names (`kubelet_evictions …`). */
function unexpected(problems: string[]): string[] {
  return problems.filter((p) => !exceptions.has(p));
}

describe('promtool check metrics', () => {
  it('finds nothing wrong in /metrics and /metrics/probes: every catalogued metric, process and build metrics', async () => {
    const { body } = await fedRegistry().exposition();
    const result = promtool(body);
    expect(unexpected(result.problems)).toEqual([]);
    // The upstream names promtool dislikes are there, and are all it reports.
    expect(result.problems.sort()).toEqual([...exceptions].sort());
  });

  it('finds nothing wrong in /metrics/resource and /metrics/cadvisor with sample timestamps', async () => {
    const provider = new FakeSummaryProvider(fixedSummary());
    const resource = createMetricsRegistry();
    resource.register(createResourceMetricsCollector({ summaryProvider: provider }));
    const cadvisor = createMetricsRegistry();
    cadvisor.register(
      createCadvisorCollector({
        summaryProvider: provider,
        machineInfo: () => ({ cpuCores: 2, memoryBytes: 1e9 }),
        identify: () => ({ id: '/kubepods/pod1/c1', image: 'busybox:1.36', name: 'c1' }),
        clock: new FakeClock(),
      }),
    );
    for (const registry of [resource, cadvisor]) {
      const result = promtool((await registry.exposition()).body);
      expect(result).toEqual({ status: 0, problems: [] });
    }
  });

  it('reports a broken exposition (the check is real)', () => {
    const result = promtool('# TYPE broken counter\nbroken{a="1"} 1\n');
    expect(result.status).not.toBe(0);
    expect(result.problems.join('\n')).toMatch(/broken/);
  });
});
