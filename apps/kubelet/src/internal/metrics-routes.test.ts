import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { FakeSummaryProvider } from '@kubelet-ts/metrics/testing';
import type { RouteHandler } from '@kubelet-ts/server';
import {
  addSummaryCollectors,
  cadvisorIdentity,
  clientCertificateTtlCollector,
  createKubeletMetrics,
  installMetricsRoutes,
  instrumentCri,
  METRICS_PATHS,
} from './metrics-routes.js';

const summary = {
  node: { nodeName: 'node-a', startTime: '2026-01-01T00:00:00Z', cpu: { time: '2026-01-01T00:00:10Z', usageCoreNanoSeconds: 2e9 } },
  pods: [
    {
      podRef: { name: 'web', namespace: 'default', uid: 'uid-web' },
      startTime: '2026-01-01T00:00:01Z',
      containers: [{ name: 'app', startTime: '2026-01-01T00:00:02Z', memory: { time: '2026-01-01T00:00:10Z', workingSetBytes: 1024 } }],
    },
  ],
};

const web = newPod({ name: 'web', uid: 'uid-web', containers: [{ name: 'app', image: 'busybox:1.36' }] });
web.status = {
  containerStatuses: [
    { name: 'app', image: 'docker.io/library/busybox:1.36', containerID: 'containerd://abc123', ready: true, restartCount: 0, imageID: '' },
  ],
} as never;

describe('metrics routes', () => {
  it('installs /metrics, /metrics/cadvisor, /metrics/resource and /metrics/probes, each from its own registry', async () => {
    const registries = createKubeletMetrics({ nodeName: 'node-a', version: 'v1.34.0-kubelet-ts.0.1.0' });
    addSummaryCollectors(registries, {
      stats: new FakeSummaryProvider(summary),
      getPods: () => [web],
      podCgroup: () => '/kubepods/burstable/poduid-web',
      clock: new FakeClock(),
      logger: new RecordingLogger(),
    });
    registries.probes.counter({ name: 'prober_probe_total', help: 'x' }).inc();
    const paths = new Map<string, RouteHandler>();
    installMetricsRoutes({ get: (path, handler) => paths.set(path, handler) }, registries);
    expect([...paths.keys()]).toEqual([...METRICS_PATHS]);

    const bodies = new Map<string, string>();
    for (const [path, handler] of paths) {
      let body = '';
      const res = { writeHead: () => res, end: (b: string) => (body = b), headersSent: false } as never;
      await handler({} as never, res, { url: new URL(`http://x${path}`), rest: '', logger: new RecordingLogger() });
      bodies.set(path, body);
    }
    expect(bodies.get('/metrics')).toContain('kubelet_node_name{node="node-a"} 1');
    expect(bodies.get('/metrics')).not.toContain('prober_probe_total');
    expect(bodies.get('/metrics/probes')).toContain('prober_probe_total 1');
    expect(bodies.get('/metrics/resource')).toContain(
      'container_memory_working_set_bytes{container="app",pod="web",namespace="default"} 1024 ',
    );
    expect(bodies.get('/metrics/cadvisor')).toContain(
      'container_memory_working_set_bytes{container="app",id="/kubepods/burstable/poduid-web/abc123",image="docker.io/library/busybox:1.36",name="abc123",namespace="default",pod="web"} 1024 ',
    );
  });

  it('labels containers as cAdvisor does: the runtime ID as name, under the pod cgroup as id', () => {
    expect(cadvisorIdentity(web, 'app', () => '/kubepods/poduid-web')).toEqual({
      image: 'docker.io/library/busybox:1.36',
      name: 'abc123',
      id: '/kubepods/poduid-web/abc123',
    });
    expect(cadvisorIdentity(web, undefined, () => '/kubepods/poduid-web')).toEqual({ id: '/kubepods/poduid-web' });
    expect(cadvisorIdentity(web, 'sidecar')).toEqual({});
  });

  it('instruments the CRI client and still closes it', async () => {
    const cri = createFakeCriClient();
    const registries = createKubeletMetrics({ nodeName: 'n', version: 'v1.34.0' });
    const instrumented = instrumentCri(cri, { metrics: registries.metrics, clock: new FakeClock() });
    await instrumented.runtime.version({});
    await instrumented.image.listImages({});
    instrumented.close();
    expect(cri.closed).toBe(true);
    const { body } = await registries.metrics.exposition();
    expect(body).toContain('kubelet_runtime_operations_total{operation_type="version"} 1');
    expect(body).toContain('kubelet_runtime_operations_total{operation_type="list_images"} 1');
  });
});

describe('clientCertificateTtlCollector', () => {
  it('gives the seconds until the client certificate expires, negative after, +Inf without one', async () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
    let notAfter: number | undefined = Date.parse('2026-01-01T01:00:00.900Z');
    const registries = createKubeletMetrics({ nodeName: 'n', version: 'v1.34.0' });
    registries.metrics.register(clientCertificateTtlCollector(() => notAfter, clock));
    const ttl = async (): Promise<string | undefined> =>
      (await registries.metrics.exposition()).body.split('\n').find((l) => l.startsWith('kubelet_certificate_manager_client_ttl_seconds '));
    expect(await ttl()).toBe('kubelet_certificate_manager_client_ttl_seconds 3600');
    await clock.advance(7_200_000);
    expect(await ttl()).toBe('kubelet_certificate_manager_client_ttl_seconds -3599');
    notAfter = undefined;
    expect(await ttl()).toBe('kubelet_certificate_manager_client_ttl_seconds +Inf');
  });
});
