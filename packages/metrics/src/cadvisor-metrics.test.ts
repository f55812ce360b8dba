import { FakeClock } from '@kubelet-ts/common/testing';
import { createCadvisorCollector } from './cadvisor-metrics.js';
import { fixedSummary } from './internal/summary-fixture.test-helper.js';
import { createMetricsRegistry } from './registry.js';
import { FakeSummaryProvider, sampleLines } from './testing/index.js';

const NOW = Date.parse('2026-01-02T03:04:10Z');

function setup() {
  const provider = new FakeSummaryProvider(fixedSummary());
  const registry = createMetricsRegistry();
  registry.register(
    createCadvisorCollector({
      summaryProvider: provider,
      machineInfo: () => ({ cpuCores: 4, memoryBytes: 8_000_000_000 }),
      identify: (pod, container) =>
        pod.uid === 'uid-web'
          ? container === undefined
            ? { id: '/kubepods/burstable/poduid-web' }
            : { id: `/kubepods/burstable/poduid-web/${container}-id`, image: `docker.io/library/${container}:1`, name: `${container}-id` }
          : undefined,
      clock: new FakeClock(NOW),
    }),
  );
  return { provider, registry };
}

const root = 'container="",id="/",image="",name="",namespace="",pod=""';
const podWeb = 'container="",id="/kubepods/burstable/poduid-web",image="",name="",namespace="default",pod="web"';
const nginx =
  'container="nginx",id="/kubepods/burstable/poduid-web/nginx-id",image="docker.io/library/nginx:1",name="nginx-id",namespace="default",pod="web"';
const sidecar =
  'container="sidecar",id="/kubepods/burstable/poduid-web/sidecar-id",image="docker.io/library/sidecar:1",name="sidecar-id",namespace="default",pod="web"';
const podNew = 'container="",id="",image="",name="",namespace="kube-system",pod="new"';

describe('createCadvisorCollector (/metrics/cadvisor)', () => {
  it('renders the root cgroup, pod cgroups and containers with cAdvisor’s names and labels', async () => {
    const { body } = await setup().registry.exposition();
    expect(sampleLines(body, 'container_cpu_usage_seconds_total')).toEqual([
      `container_cpu_usage_seconds_total{${root},cpu="total"} 123.5 1767323045000`,
      `container_cpu_usage_seconds_total{${podWeb},cpu="total"} 1.25 1767323045000`,
      `container_cpu_usage_seconds_total{${nginx},cpu="total"} 1 1767323045000`,
    ]);
    expect(sampleLines(body, 'container_memory_working_set_bytes')).toEqual([
      `container_memory_working_set_bytes{${root}} 2000000000 1767323046000`,
      `container_memory_working_set_bytes{${podWeb}} 4096 1767323045000`,
      `container_memory_working_set_bytes{${nginx}} 3072 1767323045000`,
      `container_memory_working_set_bytes{${sidecar}} 1024 1767323045000`,
    ]);
    expect(sampleLines(body, 'container_memory_usage_bytes')).toEqual([
      `container_memory_usage_bytes{${root}} 3000000000 1767323046000`,
      `container_memory_usage_bytes{${podWeb}} 8192 1767323045000`,
      `container_memory_usage_bytes{${nginx}} 6144 1767323045000`,
    ]);
    expect(sampleLines(body, 'container_memory_rss')).toEqual([
      `container_memory_rss{${root}} 1000000000 1767323046000`,
      `container_memory_rss{${nginx}} 2048 1767323045000`,
    ]);
    expect(sampleLines(body, 'container_fs_usage_bytes')).toEqual([`container_fs_usage_bytes{${nginx},device=""} 65536 1767323045000`]);
    expect(sampleLines(body, 'container_last_seen')).toEqual([
      `container_last_seen{${root}} 1767323050 1767323050000`,
      `container_last_seen{${podWeb}} 1767323050 1767323050000`,
      `container_last_seen{${nginx}} 1767323050 1767323050000`,
      `container_last_seen{${sidecar}} 1767323050 1767323050000`,
      `container_last_seen{${podNew}} 1767323050 1767323050000`,
    ]);
    expect(sampleLines(body, 'container_start_time_seconds')).toEqual([
      `container_start_time_seconds{${root}} 1767225600 1767323050000`,
      `container_start_time_seconds{${podWeb}} 1767312000 1767323050000`,
      `container_start_time_seconds{${nginx}} 1767312001 1767323050000`,
      `container_start_time_seconds{${sidecar}} 1767312002.5 1767323050000`,
      `container_start_time_seconds{${podNew}} 1767323040 1767323050000`,
    ]);
    expect(sampleLines(body, 'container_network_receive_bytes_total')).toEqual([
      `container_network_receive_bytes_total{${root},interface="eth0"} 10 1767323045000`,
      `container_network_receive_bytes_total{${podWeb},interface="eth0"} 100 1767323045000`,
    ]);
    expect(sampleLines(body, 'container_network_transmit_errors_total')).toEqual([
      `container_network_transmit_errors_total{${root},interface="eth0"} 1 1767323045000`,
    ]);
    expect(sampleLines(body, 'machine_cpu_cores')).toEqual(['machine_cpu_cores 4']);
    expect(sampleLines(body, 'machine_memory_bytes')).toEqual(['machine_memory_bytes 8000000000']);
    expect(sampleLines(body, 'container_scrape_error')).toEqual(['container_scrape_error 0']);
    expect(body).toContain(
      '# HELP container_cpu_usage_seconds_total Cumulative cpu time consumed in seconds.\n# TYPE container_cpu_usage_seconds_total counter\n',
    );
  });

  it('gives the machine figures and container_scrape_error 1 when the summary cannot be had', async () => {
    const { provider, registry } = setup();
    provider.error = new Error('no summary');
    const lines = (await registry.exposition()).body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(lines).toEqual(['container_scrape_error 1', 'machine_cpu_cores 4', 'machine_memory_bytes 8000000000']);
  });
});
