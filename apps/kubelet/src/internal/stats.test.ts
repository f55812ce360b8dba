import { createContainerManager } from '@kubelet-ts/cgroup-manager';
import { createFakeCgroupTree } from '@kubelet-ts/cgroup-manager/testing';
import { newPod } from '@kubelet-ts/api/testing';
import { noopLogger } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import { createKubeletHttpServer, createRouter } from '@kubelet-ts/server';
import { FakeSummaryProvider, newFakeNodeHost, newPodStats, newSummary } from '@kubelet-ts/stats/testing';
import { createKubeletStats, serveStatsSummary } from './stats.js';

describe('GET /stats/summary', () => {
  async function serve(provider: FakeSummaryProvider, logger = new RecordingLogger()) {
    const server = createKubeletHttpServer({ router: createRouter() });
    serveStatsSummary(server, provider, logger);
    const { port } = await server.listen('127.0.0.1', 0);
    return { server, url: `http://127.0.0.1:${port}/stats/summary`, logger };
  }

  it('serves the cached summary as JSON, never forcing an update', async () => {
    const provider = new FakeSummaryProvider(newSummary({ nodeName: 'n1', pods: [newPodStats({ name: 'web' })] }));
    const { server, url } = await serve(provider);
    try {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = (await response.json()) as {
        node: { nodeName: string; fs?: unknown };
        pods: Array<{ podRef: { name: string }; 'ephemeral-storage'?: unknown }>;
      };
      expect(body.node.nodeName).toBe('n1');
      expect(body.node.fs).toBeDefined();
      expect(body.pods[0]?.['ephemeral-storage']).toBeDefined();
      expect(provider.calls).toEqual([{ updateStats: false }]);
    } finally {
      await server.close();
    }
  });

  it('answers only CPU and memory with only_cpu_and_memory=true (and everything for any other value)', async () => {
    const provider = new FakeSummaryProvider(newSummary({ pods: [newPodStats({ name: 'web' })] }));
    const { server, url } = await serve(provider);
    try {
      const slim = (await (await fetch(`${url}?only_cpu_and_memory=true`)).json()) as {
        node: Record<string, unknown>;
        pods: Array<Record<string, unknown>>;
      };
      expect(Object.keys(slim.node).sort()).toEqual(['cpu', 'memory', 'nodeName', 'startTime']);
      expect(Object.keys(slim.pods[0] ?? {}).sort()).toEqual(['containers', 'cpu', 'memory', 'podRef', 'startTime']);
      const full = (await (await fetch(`${url}?only_cpu_and_memory=1`)).json()) as { node: Record<string, unknown> };
      expect(full.node['fs']).toBeDefined();
    } finally {
      await server.close();
    }
  });

  it('answers 500 with the reason when the summary cannot be collected', async () => {
    const provider = new FakeSummaryProvider();
    provider.failNext(new Error('failed to get imageFs stats'));
    const { server, url, logger } = await serve(provider);
    try {
      const response = await fetch(url);
      expect(response.status).toBe(500);
      expect(await response.text()).toBe('Internal Error: failed to get imageFs stats');
      expect(logger.records.map((r) => r.msg)).toContain('HTTP InternalServerError serving');
    } finally {
      await server.close();
    }
  });

  it('does nothing when the read-only server is off', () => {
    expect(() => serveStatsSummary(undefined, new FakeSummaryProvider(), noopLogger)).not.toThrow();
  });
});

describe('createKubeletStats', () => {
  it('wires pod cgroup usage, the pids count, mounted volumes and the kubepods cgroup into the summary', async () => {
    const tree = await createFakeCgroupTree({ mode: 'v1', cpus: 2 });
    try {
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const cm = createContainerManager({
        cgroupRoot: '/',
        cgroupDriver: 'cgroupfs',
        fsRoot: tree.fsRoot,
        fs: tree.fs,
        machineCapacity: async () => ({ cpuMilli: 2000, memoryBytes: 4 * 2 ** 30 }),
        clock,
      });
      await cm.start();
      const pod = newPod({
        name: 'web',
        uid: 'uid-web',
        containers: [{ name: 'app', resources: { limits: { memory: '64Mi', cpu: '1' } } }],
      });
      await cm.podCgroups.ensureExists(pod);
      const cri = createFakeCriClient({ clock });
      const sandboxConfig = {
        metadata: { name: 'web', namespace: 'default', uid: 'uid-web', attempt: 0 },
        labels: { 'io.kubernetes.pod.uid': 'uid-web' },
      };
      await cri.runtime.runPodSandbox({ config: sandboxConfig });
      const host = newFakeNodeHost({ rootDir: '/var/lib/kubelet' });
      host.setFile('/var/lib/kubelet/pods/uid-web/volumes/kubernetes.io~empty-dir/cache/f', 'x', { blocks: 8 });
      host.mkdir('/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs').setStatfs('/var/lib/containerd', { blocks: 100 });
      const pidsRead: string[] = [];
      const stats = createKubeletStats({
        nodeName: 'n1',
        rootDir: '/var/lib/kubelet',
        podLogsDir: '/var/log/pods',
        enforceNodeAllocatable: ['pods'],
        cri,
        containerManager: cm,
        volumes: {
          getMountedVolumes: () => [
            {
              volumeName: 'cache',
              pluginName: 'kubernetes.io/empty-dir',
              path: '/var/lib/kubelet/pods/uid-web/volumes/kubernetes.io~empty-dir/cache',
            },
          ],
        },
        getPods: () => [pod],
        host,
        readPidsCurrent: async (dir) => {
          pidsRead.push(dir);
          return '3\n';
        },
        clock,
        logger: noopLogger,
      });
      const summary = await stats.get();
      const podStats = summary.pods[0];
      expect(podStats?.podRef.uid).toBe('uid-web');
      expect(podStats?.memory?.workingSetBytes).toBe(0);
      expect(podStats?.memory?.availableBytes).toBe(64 * 2 ** 20);
      expect(podStats?.process_stats).toEqual({ process_count: 3 });
      expect(pidsRead[0]).toMatch(/pids\/kubepods\/poduid-web$/ /* Guaranteed: limits = requests */);
      expect(podStats?.volume?.[0]).toMatchObject({ name: 'cache', usedBytes: 8 * 512 * 2, inodesUsed: 2 });
      expect(summary.node.systemContainers?.[0]).toMatchObject({
        name: 'pods',
        memory: { workingSetBytes: 0, availableBytes: 4 * 2 ** 30 },
      });
    } finally {
      await tree.cleanup();
    }
  });
});

describe('createKubeletStats volumeStatsAggPeriod', () => {
  const cacheDir = '/var/lib/kubelet/pods/uid-web/volumes/kubernetes.io~empty-dir/cache';
  async function wired(
    volumeStatsAggPeriod: string | undefined,
    run: (t: { stats: ReturnType<typeof createKubeletStats>; host: ReturnType<typeof newFakeNodeHost>; clock: FakeClock }) => Promise<void>,
  ) {
    const tree = await createFakeCgroupTree({ mode: 'v1', cpus: 2 });
    try {
      const clock = new FakeClock(Date.UTC(2026, 0, 1));
      const cm = createContainerManager({
        cgroupRoot: '/',
        cgroupDriver: 'cgroupfs',
        fsRoot: tree.fsRoot,
        fs: tree.fs,
        machineCapacity: async () => ({ cpuMilli: 2000, memoryBytes: 4 * 2 ** 30 }),
        clock,
      });
      await cm.start();
      const pod = newPod({ name: 'web', uid: 'uid-web', containers: [{ name: 'app' }] });
      await cm.podCgroups.ensureExists(pod);
      const cri = createFakeCriClient({ clock });
      await cri.runtime.runPodSandbox({
        config: {
          metadata: { name: 'web', namespace: 'default', uid: 'uid-web', attempt: 0 },
          labels: { 'io.kubernetes.pod.uid': 'uid-web' },
        },
      });
      const host = newFakeNodeHost({ rootDir: '/var/lib/kubelet' });
      host.setFile(`${cacheDir}/f`, 'x', { blocks: 8 });
      host.mkdir('/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs').setStatfs('/var/lib/containerd', { blocks: 100 });
      const stats = createKubeletStats({
        nodeName: 'n1',
        rootDir: '/var/lib/kubelet',
        podLogsDir: '/var/log/pods',
        enforceNodeAllocatable: [],
        ...(volumeStatsAggPeriod !== undefined ? { volumeStatsAggPeriod } : {}),
        cri,
        containerManager: cm,
        volumes: { getMountedVolumes: () => [{ volumeName: 'cache', pluginName: 'kubernetes.io/empty-dir', path: cacheDir }] },
        getPods: () => [pod],
        host,
        readPidsCurrent: async () => '1\n',
        clock,
        logger: noopLogger,
      });
      await run({ stats, host, clock });
    } finally {
      await tree.cleanup();
    }
  }
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 50; i++) await Promise.resolve();
  };

  it('measures volumes again only after the configured period, even for fresh (updateStats) summaries', async () => {
    await wired('5s', async ({ stats, host, clock }) => {
      const used = async () => (await stats.get({ updateStats: true })).pods[0]?.volume?.[0]?.usedBytes;
      expect(await used()).toBe((8 + 8) * 512);
      host.setFile(`${cacheDir}/big`, 'y', { blocks: 100 });
      await clock.advance(4_999);
      await used();
      await settle();
      expect(await used()).toBe((8 + 8) * 512);
      // Jittered: due somewhere in [5 s, 10 s) after the first measurement.
      await clock.advance(5_001);
      await used();
      await settle();
      expect(await used()).toBe((8 + 8 + 100) * 512);
    });
  });

  it('defaults to upstream 1 minute', async () => {
    await wired(undefined, async ({ stats, host, clock }) => {
      expect((await stats.get({ updateStats: true })).pods[0]?.volume).toHaveLength(1);
      host.setFile(`${cacheDir}/big`, 'y', { blocks: 100 });
      await clock.advance(59_000);
      await stats.get({ updateStats: true });
      await settle();
      expect((await stats.get({ updateStats: true })).pods[0]?.volume?.[0]?.usedBytes).toBe((8 + 8) * 512);
    });
  });

  it('reports no volume stats when the period is 0 (as upstream)', async () => {
    await wired('0s', async ({ stats }) => {
      const pod = (await stats.get()).pods[0];
      expect(pod?.podRef.uid).toBe('uid-web');
      expect(pod?.volume).toBeUndefined();
    });
  });
});
