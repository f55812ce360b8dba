// The whole kubelet in-process: real wiring, fake runtime, fake pod source, a temp root dir.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Node, Pod, PodList } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeCgroupManager } from '@kubelet-ts/cgroup-manager/testing';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { FakePodSource } from '@kubelet-ts/pod-sources/testing';
import { loadOptionsOrExit } from './internal/cli.js';
import type { CliIO } from './internal/cli.js';
import { buildKubelet, startupSummary } from './kubelet.js';

const failingIO: CliIO = {
  out: () => undefined,
  err: (text) => {
    throw new Error(text);
  },
  exit: (code) => {
    throw new Error(`exit ${code}`);
  },
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls until `fn` returns a value, for at most 30 s (the real clock drives the kubelet's loops; a loaded CI machine is slow). */
async function eventually<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('buildKubelet, in-process with fakes', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kubelet-in-process-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('syncs a static pod from its source through the runtime, serves it Running and Ready on /pods, and stops cleanly', async () => {
    const port = await freePort();
    const configFile = join(root, 'config.yaml');
    await writeFile(
      configFile,
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'kind: KubeletConfiguration',
        `readOnlyPort: ${port}`,
        'address: 127.0.0.1',
        'healthzPort: 0',
        `podLogsDir: ${join(root, 'logs')}`,
        `containerLogsDir: ${join(root, 'containers')}`,
        'resolvConf: ""',
        // No thresholds (the test must not depend on the machine's free memory), no image GC.
        'evictionHard: {}',
        'imageGCHighThresholdPercent: 100',
        'imageGCLowThresholdPercent: 99',
        '',
      ].join('\n'),
    );
    const options = await loadOptionsOrExit(
      [`--config=${configFile}`, `--root-dir=${join(root, 'root')}`, '--hostname-override=node-a', '--node-ip=192.168.1.10'],
      failingIO,
    );
    const cri = createFakeCriClient();
    const source = new FakePodSource('file');
    // Limits it does not set default to node allocatable (4 cores, nothing reserved), in the env and in a downwardAPI volume alike.
    const cpuMilli = { resource: 'limits.cpu', divisor: '1m' };
    const pod: Pod = newPod({
      name: 'web',
      uid: 'uid-web',
      containers: [
        {
          name: 'app',
          image: 'busybox:1.36',
          env: [{ name: 'CPU_M', valueFrom: { resourceFieldRef: cpuMilli } }],
          volumeMounts: [{ name: 'info', mountPath: '/info' }],
        },
      ],
      spec: {
        volumes: [{ name: 'info', downwardAPI: { items: [{ path: 'cpu_m', resourceFieldRef: { containerName: 'app', ...cpuMilli } }] } }],
      },
    });
    source.set([pod]);
    const logger = new RecordingLogger();
    const kubelet = await buildKubelet(options, {
      logger,
      cri,
      podSources: [source],
      cgroupManager: new FakeCgroupManager(),
      machineCapacity: async () => ({ cpuMilli: 4000, memoryBytes: 8 * 1024 ** 3 }),
    });
    // Upstream initializeModules: the containers log dir (containerLogsDir) is made at start.
    expect((await stat(join(root, 'containers'))).isDirectory()).toBe(true);
    const controller = new AbortController();
    const running = kubelet.run(controller.signal);
    try {
      const served = await eventually('web Running and Ready on /pods', async () => {
        const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
        const web = list.items.find((p) => p.metadata.uid === 'uid-web');
        const ready = web?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        return web?.status?.phase === 'Running' && ready ? web : undefined;
      });
      expect(served.metadata.annotations?.['kubernetes.io/config.source']).toBe('file');
      expect(served.status?.hostIP).toBe('192.168.1.10');
      const [container] = (await cri.runtime.listContainers({})).containers;
      expect(container).toMatchObject({
        state: 'CONTAINER_RUNNING',
        labels: { 'io.kubernetes.pod.uid': 'uid-web', 'io.kubernetes.container.name': 'app' },
      });
      expect(served.status?.containerStatuses?.[0]).toMatchObject({
        name: 'app',
        ready: true,
        containerID: `containerd://${container?.id}`,
      });
      const node = (await (await fetch(`http://127.0.0.1:${port}/node`)).json()) as Node;
      expect(node.metadata.name).toBe('node-a');
      expect(node.status?.capacity).toMatchObject({ cpu: '4000m', pods: '110' });
      const created = cri.runtime.callsOf('createContainer')[0]?.request as
        { config: { envs: Array<{ key: string; value: string }> } } | undefined;
      expect(created?.config.envs).toContainEqual({ key: 'CPU_M', value: '4000' });
      expect(await readFile(join(root, 'root', 'pods', 'uid-web', 'volumes', 'kubernetes.io~downward-api', 'info', 'cpu_m'), 'utf8')).toBe(
        '4000',
      );
      // The metrics endpoints of the read-only port, as upstream serves them there too.
      const metrics = await eventually('kubelet_running_pods 1 on /metrics', async () => {
        const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        return text.includes('\nkubelet_running_pods 1\n') ? text : undefined;
      });
      expect(metrics).toContain('kubelet_node_name{node="node-a"} 1');
      expect(metrics).toContain('kubelet_runtime_operations_total{operation_type="create_container"} 1');
      expect(metrics).toMatch(/\nprocess_resident_memory_bytes \d+\n/);
      expect(metrics).toMatch(/\nkubelet_pod_start_duration_seconds_count 1\n/);
      for (const path of ['/metrics/resource', '/metrics/cadvisor', '/metrics/probes']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 200, 'text/plain; version=0.0.4; charset=utf-8']);
        await res.text();
      }
      const cadvisor = await (await fetch(`http://127.0.0.1:${port}/metrics/cadvisor`)).text();
      expect(cadvisor).toMatch(/\nmachine_cpu_cores \d+\n/);

      // kubectl debug --target=app: the source's update adds an ephemeral container; it starts in app's PID
      // namespace and shows in ephemeralContainerStatuses, the pod still Running and Ready on app alone.
      source.set([
        { ...pod, spec: { ...pod.spec, ephemeralContainers: [{ name: 'dbg', image: 'busybox:1.36', targetContainerName: 'app' }] } },
      ]);
      const debugged = await eventually('dbg running on /pods', async () => {
        const list = (await (await fetch(`http://127.0.0.1:${port}/pods`)).json()) as PodList;
        const web = list.items.find((p) => p.metadata.uid === 'uid-web');
        return web?.status?.ephemeralContainerStatuses?.[0]?.state?.running !== undefined ? web : undefined;
      });
      expect(debugged.status?.ephemeralContainerStatuses?.[0]).toMatchObject({ name: 'dbg', ready: false, image: 'busybox:1.36' });
      expect(debugged.status?.containerStatuses?.map((c) => c.name)).toEqual(['app']);
      expect(debugged.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
      const dbgConfig = cri.runtime
        .callsOf('createContainer')
        .map((c) => c.request as { config: { metadata?: { name?: string }; linux?: { securityContext?: { namespaceOptions?: unknown } } } })
        .find((r) => r.config.metadata?.name === 'dbg');
      expect(dbgConfig?.config.linux?.securityContext?.namespaceOptions).toMatchObject({ pid: 'TARGET', targetId: container?.id });
    } finally {
      controller.abort();
      await running;
    }
    // Stopped: the runtime connection is closed, the server is gone, the pod is left running.
    expect(cri.closed).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/pods`)).rejects.toThrow();
    expect((await cri.runtime.listContainers({})).containers[0]?.state).toBe('CONTAINER_RUNNING');
    expect(logger.records.filter((r) => r.level === 'error').map((r) => r.msg)).toEqual([]);
    expect(logger.find('Serving')[0]?.fields).toEqual({ server: 'read-only', address: `127.0.0.1:${port}` });
  }, 60_000);

  it('never claims a mode or a server that is not running in its start-up summary', async () => {
    const node = { nodeName: 'node-a', nodeIPs: ['10.0.0.1'] };
    const api = await loadOptionsOrExit(['--kubeconfig=/etc/kubernetes/kubelet.conf', `--root-dir=${root}`], failingIO);
    expect(startupSummary(api, node)).toMatchObject({ mode: 'api-server', server: '0.0.0.0:10250', ...node });
    const disabled = await loadOptionsOrExit(
      ['--kubeconfig=/etc/kubernetes/kubelet.conf', '--enable-server=false', `--root-dir=${root}`],
      failingIO,
    );
    expect(startupSummary(disabled, node)).toMatchObject({ mode: 'api-server', server: 'disabled' });
    const standalone = await loadOptionsOrExit([`--root-dir=${root}`], failingIO);
    expect(startupSummary(standalone, node)).toMatchObject({ mode: 'standalone', server: 'not served in standalone mode', ...node });
  });
});
