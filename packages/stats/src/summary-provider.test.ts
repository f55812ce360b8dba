import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createFakeCriClient } from '@kubelet-ts/cri-client/testing';
import type { FakeCriClient } from '@kubelet-ts/cri-client/testing';
import type { CgroupUsage, SummaryProviderOptions } from './index.js';
import { StatsError, createSummaryProvider } from './index.js';
import type { FakeHostFs } from './testing/index.js';
import { newFakeNodeHost } from './testing/index.js';

const START = Date.UTC(2026, 0, 1);
const GiB = 1024 ** 3;
const ROOT = '/var/lib/kubelet';
const LOGS = '/var/log/pods';
const IMAGEFS = '/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs';

interface Harness {
  clock: FakeClock;
  host: FakeHostFs;
  cri: FakeCriClient;
  pods: Pod[];
  options: SummaryProviderOptions;
}

function harness(over: Partial<SummaryProviderOptions> = {}, hostOptions: Parameters<typeof newFakeNodeHost>[0] = {}): Harness {
  const clock = new FakeClock(START);
  const host = newFakeNodeHost({ rootDir: ROOT, ...hostOptions });
  host
    .mkdir(IMAGEFS)
    .setStatfs(
      '/var/lib/containerd',
      { bsize: 4096, blocks: (50 * GiB) / 4096, bfree: (20 * GiB) / 4096, bavail: (20 * GiB) / 4096, files: 500_000, ffree: 400_000 },
      { device: 2 },
    );
  const cri = createFakeCriClient({ clock, image: { imageFsMountpoint: IMAGEFS, images: [{ ref: 'busybox', size: 5_000_000 }] } });
  const pods: Pod[] = [];
  const options: SummaryProviderOptions = {
    nodeName: 'node-1',
    rootDir: ROOT,
    podLogsDir: LOGS,
    runtimeService: cri.runtime,
    imageService: cri.image,
    getPods: () => pods,
    host,
    clock,
    ...over,
  };
  return { clock, host, cri, pods, options };
}

/** Runs a sandbox and running containers for the pod in the fake runtime; returns the container IDs by name. */
async function runPod(h: Harness, pod: Pod, names = pod.spec.containers.map((c) => c.name)): Promise<Record<string, string>> {
  const { name, namespace = 'default', uid } = pod.metadata as { name: string; namespace?: string; uid: string };
  const sandboxConfig = { metadata: { name, namespace, uid, attempt: 0 }, labels: { 'io.kubernetes.pod.uid': uid } };
  const { podSandboxId } = await h.cri.runtime.runPodSandbox({ config: sandboxConfig });
  const ids: Record<string, string> = {};
  for (const c of names) {
    const { containerId } = await h.cri.runtime.createContainer({
      podSandboxId,
      config: {
        metadata: { name: c, attempt: 0 },
        image: { image: 'busybox' },
        labels: { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.container.name': c },
      },
      sandboxConfig,
    });
    await h.cri.runtime.startContainer({ containerId });
    ids[c] = containerId;
  }
  h.pods.push(pod);
  return ids;
}

function u64(value: number): { value: string } {
  return { value: String(value) };
}

function nanos(ms: number): string {
  return `${ms}000000`;
}

describe('node figures', () => {
  it('reports memory as upstream: working set = root usage − total_inactive_file, available = MemTotal − working set', async () => {
    const h = harness({}, { memTotalBytes: 8 * GiB, memoryUsageBytes: 3 * GiB, inactiveFileBytes: GiB });
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.memory).toMatchObject({
      usageBytes: 3 * GiB,
      workingSetBytes: 2 * GiB,
      availableBytes: 6 * GiB,
      rssBytes: 1.5 * GiB,
      pageFaults: 1000,
      majorPageFaults: 10,
    });
    expect(node.memory?.time).toBe(new Date(START).toISOString());
  });

  it('never reports a negative working set or availability', async () => {
    const h = harness({}, { memTotalBytes: GiB, memoryUsageBytes: 2 * GiB, inactiveFileBytes: 3 * GiB });
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.memory?.workingSetBytes).toBe(0);
    expect(node.memory?.availableBytes).toBe(GiB);
    h.host.setFile('/sys/fs/cgroup/memory/memory.stat', 'total_inactive_file 0\n');
    const { node: again } = await createSummaryProvider(h.options).get();
    expect(again.memory?.availableBytes).toBe(0);
  });

  it('reads the v2 root memory.stat: usage = anon + file, working set = usage − inactive_file', async () => {
    const h = harness(
      {},
      { cgroupMode: 'v2', memTotalBytes: 16 * GiB, memoryUsageBytes: 4 * GiB, inactiveFileBytes: GiB, cpuUsageNs: 5_000_000_000 },
    );
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.memory).toMatchObject({ usageBytes: 4 * GiB, workingSetBytes: 3 * GiB, availableBytes: 13 * GiB, rssBytes: 2 * GiB });
    expect(node.cpu?.usageCoreNanoSeconds).toBe(5_000_000_000);
  });

  it('takes cumulative CPU from the root cpuacct, falling back to /proc/stat busy time', async () => {
    const h = harness({}, { cpuUsageNs: 123_456_789 });
    expect((await createSummaryProvider(h.options).get()).node.cpu?.usageCoreNanoSeconds).toBe(123_456_789);
    h.host.remove('/sys/fs/cgroup/cpuacct');
    // /proc/stat: user 100 + system 50 jiffies at USER_HZ 100 = 1.5 s.
    expect((await createSummaryProvider(h.options).get()).node.cpu?.usageCoreNanoSeconds).toBe(1_500_000_000);
  });

  it('computes usageNanoCores from successive samples: none on the first, Δusage / Δt after', async () => {
    const h = harness({}, { cpuUsageNs: 1_000_000_000 });
    const provider = createSummaryProvider(h.options);
    const first = await provider.get({ updateStats: true });
    expect(first.node.cpu?.usageNanoCores).toBeUndefined();
    await h.clock.advance(10_000);
    // 5 s of CPU in 10 s: half a core.
    h.host.setFile('/sys/fs/cgroup/cpuacct/cpuacct.usage', '6000000000\n');
    const second = await provider.get({ updateStats: true });
    expect(second.node.cpu?.usageNanoCores).toBe(500_000_000);
    expect(second.node.cpu?.time).toBe(new Date(START + 10_000).toISOString());
  });

  it('reports nodefs from statfs of the root dir as cadvisor: used = (blocks − bfree) × bsize, available = bavail × bsize', async () => {
    const h = harness();
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.fs).toEqual({
      time: new Date(START).toISOString(),
      capacityBytes: 100 * GiB,
      usedBytes: 60 * GiB,
      availableBytes: 30 * GiB,
      inodes: 1_000_000,
      inodesFree: 600_000,
      inodesUsed: 400_000,
    });
  });

  it('reports imagefs from CRI ImageFsInfo (used bytes and inodes) and statfs of its mountpoint, and the same figures as containerFs', async () => {
    const h = harness();
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.runtime?.imageFs).toEqual({
      time: new Date(START).toISOString(),
      usedBytes: 5_000_000,
      inodesUsed: 100,
      capacityBytes: 50 * GiB,
      availableBytes: 20 * GiB,
      inodes: 500_000,
      inodesFree: 400_000,
    });
    expect(node.runtime?.containerFs).toEqual(node.runtime?.imageFs);
  });

  it('reports rlimit as upstream: maxpid = min(pid_max, threads-max), curproc = the task count of /proc/loadavg', async () => {
    const h = harness({}, { pidMax: 4_194_304, threadsMax: 192_729, tasks: 3518 });
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.rlimit).toEqual({ time: new Date(START).toISOString(), maxpid: 192_729, curproc: 3518 });
    h.host.setFile('/proc/sys/kernel/pid_max', '32768\n');
    expect((await createSummaryProvider(h.options).get()).node.rlimit?.maxpid).toBe(32_768);
  });

  it('reports the node network from /proc/net/dev as cadvisor: loopback and veth left out, eth0 at the top level', async () => {
    const h = harness();
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.network).toEqual({
      time: new Date(START).toISOString(),
      name: 'eth0',
      rxBytes: 1000,
      rxErrors: 1,
      txBytes: 2000,
      txErrors: 2,
      interfaces: [
        { name: 'eth0', rxBytes: 1000, rxErrors: 1, txBytes: 2000, txErrors: 2 },
        { name: 'kts0', rxBytes: 300, rxErrors: 0, txBytes: 400, txErrors: 0 },
      ],
    });
    h.host.remove('/proc/net/dev');
    expect((await createSummaryProvider(h.options).get()).node.network).toBeUndefined();
  });

  it('starts the node at boot time (/proc/stat btime) and names it', async () => {
    const h = harness({}, { bootTimeSeconds: 1_767_000_000 });
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.startTime).toBe(new Date(1_767_000_000_000).toISOString());
    expect(node.nodeName).toBe('node-1');
  });

  it('reports the pods cgroup as the `pods` system container, available = its limit − working set', async () => {
    const usage = { cpuUsageNanoseconds: 7, memoryUsageBytes: 500, memoryWorkingSetBytes: 400, memoryLimitBytes: 1000 };
    const h = harness({ podsCgroupStats: async () => usage });
    const { node } = await createSummaryProvider(h.options).get();
    expect(node.systemContainers).toEqual([
      {
        name: 'pods',
        startTime: new Date(START).toISOString(),
        cpu: { time: new Date(START).toISOString(), usageCoreNanoSeconds: 7 },
        memory: { time: new Date(START).toISOString(), usageBytes: 500, workingSetBytes: 400, availableBytes: 600 },
      },
    ]);
  });

  it('fails with NODE_STATS when the root cgroup memory cannot be read, and with RUNTIME when CRI has no image filesystem', async () => {
    const h = harness();
    h.host.remove('/sys/fs/cgroup/memory');
    await expect(createSummaryProvider(h.options).get()).rejects.toMatchObject({
      name: 'StatsError',
      code: 'NODE_STATS',
      message: 'failed to get root cgroup memory stats',
    });
    const h2 = harness({ imageService: { imageFsInfo: async () => ({ imageFilesystems: [], containerFilesystems: [] }) } });
    const err: unknown = await createSummaryProvider(h2.options)
      .get()
      .catch((e: unknown) => e);
    expect(StatsError.is(err) && err.code).toBe('RUNTIME');
  });
});

describe('cache', () => {
  it('returns a summary no older than the housekeeping interval without updateStats, and a fresh one with it', async () => {
    const h = harness({ housekeepingIntervalMs: 10_000 });
    const provider = createSummaryProvider(h.options);
    await provider.get();
    const listCalls = (): number => h.cri.runtime.calls.filter((c) => c.method === 'listContainerStats').length;
    expect(listCalls()).toBe(1);
    h.host.setFile('/sys/fs/cgroup/memory/memory.usage_in_bytes', `${4 * GiB}\n`);
    await h.clock.advance(9_999);
    expect((await provider.get()).node.memory?.usageBytes).toBe(3 * GiB);
    expect(listCalls()).toBe(1);
    expect((await provider.get({ updateStats: true })).node.memory?.usageBytes).toBe(4 * GiB);
    expect(listCalls()).toBe(2);
    await h.clock.advance(10_000);
    await provider.get();
    expect(listCalls()).toBe(3);
  });

  it('shares one collection between concurrent callers and hands each a copy', async () => {
    const h = harness();
    const provider = createSummaryProvider(h.options);
    const [a, b] = await Promise.all([provider.get({ updateStats: true }), provider.get({ updateStats: true })]);
    expect(h.cri.runtime.calls.filter((c) => c.method === 'listContainerStats')).toHaveLength(1);
    a.node.nodeName = 'changed';
    expect(b.node.nodeName).toBe('node-1');
    expect((await provider.get()).node.nodeName).toBe('node-1');
  });

  it('rejects at once when the signal is already aborted', async () => {
    const h = harness();
    await expect(createSummaryProvider(h.options).get({ signal: AbortSignal.abort(new Error('stop')) })).rejects.toThrow('stop');
  });
});

describe('pods', () => {
  function webPod(): Pod {
    return newPod({
      name: 'web',
      namespace: 'prod',
      uid: 'uid-web',
      containers: [
        { name: 'app', resources: { limits: { memory: '100Mi' } } },
        { name: 'side', resources: { limits: { memory: '50Mi' } } },
      ],
      spec: {
        volumes: [
          { name: 'cache', emptyDir: {} },
          { name: 'ram', emptyDir: { medium: 'Memory' } },
          { name: 'config', configMap: { name: 'cfg' } },
          { name: 'token', secret: { secretName: 's' } },
        ],
      } as Partial<Pod['spec']>,
    });
  }

  it('reports each running container from CRI: CPU, memory working set (available = its limit − working set), writable layer with the imagefs capacity, and its log files', async () => {
    const h = harness();
    const pod = webPod();
    const ids = await runPod(h, pod);
    h.cri.runtime.setContainerStats(ids['app'] ?? '', {
      cpu: { timestamp: nanos(START), usageCoreNanoSeconds: u64(2_000_000_000), usageNanoCores: null, psi: null },
      memory: {
        timestamp: nanos(START),
        workingSetBytes: u64(30 * 1024 * 1024),
        availableBytes: u64(0),
        usageBytes: u64(40 * 1024 * 1024),
        rssBytes: u64(20 * 1024 * 1024),
        pageFaults: u64(5),
        majorPageFaults: u64(1),
        psi: null,
      },
      writableLayer: { timestamp: nanos(START), fsId: { mountpoint: IMAGEFS }, usedBytes: u64(8192), inodesUsed: u64(3) },
    });
    h.host.setFile(`${LOGS}/prod_web_uid-web/app/0.log`, 'x'.repeat(5000)); // 2 blocks of 4 KiB
    h.host.setFile(`${LOGS}/prod_web_uid-web/app/1.log`, 'y');
    const summary = await createSummaryProvider(h.options).get();
    expect(summary.pods).toHaveLength(1);
    const stats = summary.pods[0];
    expect(stats?.podRef).toEqual({ name: 'web', namespace: 'prod', uid: 'uid-web' });
    const app = stats?.containers.find((c) => c.name === 'app');
    expect(app?.cpu).toEqual({ time: new Date(START).toISOString(), usageCoreNanoSeconds: 2_000_000_000 });
    expect(app?.memory).toMatchObject({
      workingSetBytes: 30 * 1024 * 1024,
      usageBytes: 40 * 1024 * 1024,
      rssBytes: 20 * 1024 * 1024,
      availableBytes: 70 * 1024 * 1024,
    });
    expect(app?.rootfs).toMatchObject({ usedBytes: 8192, inodesUsed: 3, capacityBytes: 50 * GiB, availableBytes: 20 * GiB });
    expect(app?.logs).toMatchObject({ usedBytes: 3 * 4096, inodesUsed: 2, capacityBytes: 100 * GiB, availableBytes: 30 * GiB });
    expect(stats?.containers.map((c) => c.name).sort()).toEqual(['app', 'side']);
  });

  it("computes a container's usageNanoCores from its previous CRI sample when the runtime gives none", async () => {
    const h = harness();
    const ids = await runPod(h, webPod(), ['app']);
    const id = ids['app'] ?? '';
    const cpu = (ms: number, usage: number) => ({
      cpu: { timestamp: nanos(ms), usageCoreNanoSeconds: u64(usage), usageNanoCores: null, psi: null },
    });
    h.cri.runtime.setContainerStats(id, cpu(START, 1_000_000_000));
    const provider = createSummaryProvider(h.options);
    await provider.get({ updateStats: true });
    h.cri.runtime.setContainerStats(id, cpu(START + 2000, 1_500_000_000));
    const summary = await provider.get({ updateStats: true });
    expect(summary.pods[0]?.containers[0]?.cpu?.usageNanoCores).toBe(250_000_000);
    // Our rate wins over the runtime's own figure (containerd 1.6 reports 0 between its samples)...
    h.cri.runtime.setContainerStats(id, {
      cpu: { timestamp: nanos(START + 4000), usageCoreNanoSeconds: u64(2e9), usageNanoCores: u64(0), psi: null },
    });
    expect((await provider.get({ updateStats: true })).pods[0]?.containers[0]?.cpu?.usageNanoCores).toBe(250_000_000);
    // ...which is used only while we have a single sample (a new container).
    const fresh = createSummaryProvider(h.options);
    h.cri.runtime.setContainerStats(id, {
      cpu: { timestamp: nanos(START + 6000), usageCoreNanoSeconds: u64(3e9), usageNanoCores: u64(42), psi: null },
    });
    expect((await fresh.get()).pods[0]?.containers[0]?.cpu?.usageNanoCores).toBe(42);
  });

  it("reads the pod network from its sandbox's network namespace (/proc/<infra pid>/net/dev), not for host-network pods", async () => {
    const h = harness();
    // The fake runtime's verbose PodSandboxStatus reports pid 1.
    h.host.setFile('/proc/1/net/dev', 'h|\nh|\n    lo: 1 1 0 0 0 0 0 0 1 1 0 0 0 0 0 0\n  eth0: 70 1 0 0 0 0 0 0 80 1 3 0 0 0 0 0\n');
    await runPod(h, webPod(), ['app']);
    const hostPod = newPod({ name: 'host', uid: 'uid-host', spec: { hostNetwork: true } as Partial<Pod['spec']> });
    await runPod(h, hostPod, ['app']);
    const provider = createSummaryProvider(h.options);
    const summary = await provider.get();
    const web = summary.pods.find((p) => p.podRef.name === 'web');
    expect(web?.network).toEqual({
      time: new Date(START).toISOString(),
      name: 'eth0',
      rxBytes: 70,
      rxErrors: 0,
      txBytes: 80,
      txErrors: 3,
      interfaces: [{ name: 'eth0', rxBytes: 70, rxErrors: 0, txBytes: 80, txErrors: 3 }],
    });
    expect(summary.pods.find((p) => p.podRef.name === 'host')?.network).toBeUndefined();
    // The pid is asked once per sandbox.
    await provider.get({ updateStats: true });
    expect(h.cri.runtime.calls.filter((c) => c.method === 'podSandboxStatus')).toHaveLength(1);
  });

  it('leaves out exited containers and pods that have no sandbox', async () => {
    const h = harness();
    const ids = await runPod(h, webPod());
    h.cri.runtime.exitContainer(ids['side'] ?? '', 0);
    h.pods.push(newPod({ name: 'pending', uid: 'uid-pending' }));
    const summary = await createSummaryProvider(h.options).get();
    expect(summary.pods.map((p) => p.podRef.name)).toEqual(['web']);
    expect(summary.pods[0]?.containers.map((c) => c.name)).toEqual(['app']);
  });

  it('measures only the pods asked for with podUIDs, lists nothing from the runtime for none, and never caches a subset', async () => {
    const h = harness();
    await runPod(h, webPod());
    await runPod(h, newPod({ name: 'db', namespace: 'prod', uid: 'uid-db', containers: [{ name: 'pg' }] }));
    const provider = createSummaryProvider(h.options);
    const runtimeLists = (): number =>
      h.cri.runtime.calls.filter((c) => c.method === 'listContainerStats' || c.method === 'listPodSandbox').length;

    const one = await provider.get({ updateStats: true, podUIDs: new Set(['uid-db']) });
    expect(one.pods.map((p) => p.podRef.name)).toEqual(['db']);
    expect(one.node.memory?.workingSetBytes).toBeGreaterThan(0);
    expect(runtimeLists()).toBe(2);

    const none = await provider.get({ updateStats: true, podUIDs: new Set() });
    expect(none.pods).toEqual([]);
    expect(none.node.fs?.capacityBytes).toBeGreaterThan(0);
    expect(runtimeLists()).toBe(2);

    // Neither subset was cached: a plain get collects every pod.
    expect((await provider.get()).pods.map((p) => p.podRef.name).sort()).toEqual(['db', 'web']);
    expect(runtimeLists()).toBe(4);
  });

  it('takes pod CPU and memory from the pod cgroup (available = the summed limits − working set) and the process count from its pids', async () => {
    const usage: CgroupUsage = { cpuUsageNanoseconds: 9_000, memoryUsageBytes: 80 * 1024 * 1024, memoryWorkingSetBytes: 60 * 1024 * 1024 };
    const seen: string[] = [];
    const h = harness({
      podCgroupStats: async (pod) => {
        seen.push(pod.metadata.uid as string);
        return usage;
      },
      podProcessCount: async () => 4,
    });
    await runPod(h, webPod());
    const stats = (await createSummaryProvider(h.options).get()).pods[0];
    expect(seen).toEqual(['uid-web']);
    expect(stats?.cpu).toEqual({ time: new Date(START).toISOString(), usageCoreNanoSeconds: 9_000 });
    expect(stats?.memory).toEqual({
      time: new Date(START).toISOString(),
      usageBytes: 80 * 1024 * 1024,
      workingSetBytes: 60 * 1024 * 1024,
      availableBytes: 90 * 1024 * 1024,
    });
    expect(stats?.process_stats).toEqual({ process_count: 4 });
  });

  it("sums the containers' CPU and memory when the pod cgroup cannot be read (upstream's fallback)", async () => {
    const logger = new RecordingLogger();
    const h = harness({ podCgroupStats: async () => Promise.reject(new Error('no cgroup')), logger });
    const ids = await runPod(h, webPod());
    const mem = (ws: number) => ({
      memory: {
        timestamp: nanos(START),
        workingSetBytes: u64(ws),
        availableBytes: null,
        usageBytes: u64(ws),
        rssBytes: null,
        pageFaults: null,
        majorPageFaults: null,
        psi: null,
      },
    });
    h.cri.runtime.setContainerStats(ids['app'] ?? '', mem(1000));
    h.cri.runtime.setContainerStats(ids['side'] ?? '', mem(500));
    const stats = (await createSummaryProvider(h.options).get()).pods[0];
    expect(stats?.memory?.workingSetBytes).toBe(1500);
    expect(stats?.process_stats).toBeUndefined();
  });

  it('sums ephemeral-storage as upstream: writable layers + container logs + ephemeral volumes + pod log files + etc-hosts, with the nodefs capacity', async () => {
    const h = harness({
      volumeStats: async () => [
        { name: 'cache', time: new Date(START).toISOString(), usedBytes: 1000, inodesUsed: 5 },
        { name: 'ram', time: new Date(START).toISOString(), usedBytes: 1_000_000, inodesUsed: 50 },
        { name: 'config', time: new Date(START).toISOString(), usedBytes: 300, inodesUsed: 2 },
        { name: 'token', time: new Date(START).toISOString(), usedBytes: 7_000_000, inodesUsed: 70 },
      ],
    });
    const ids = await runPod(h, webPod());
    const layer = (bytes: number, inodes: number) => ({
      writableLayer: { timestamp: nanos(START), fsId: { mountpoint: IMAGEFS }, usedBytes: u64(bytes), inodesUsed: u64(inodes) },
    });
    h.cri.runtime.setContainerStats(ids['app'] ?? '', layer(10_000, 10));
    h.cri.runtime.setContainerStats(ids['side'] ?? '', layer(20_000, 20));
    h.host.setFile(`${LOGS}/prod_web_uid-web/app/0.log`, 'a', { blocks: 16 }); // 8 KiB
    h.host.setFile(`${LOGS}/prod_web_uid-web/side/0.log`, 'b', { blocks: 8 }); // 4 KiB
    h.host.setFile(`${LOGS}/prod_web_uid-web/extra.log`, 'c', { blocks: 8 }); // pod-level file: 4 KiB
    h.host.setFile(`${ROOT}/pods/uid-web/etc-hosts`, '127.0.0.1 localhost\n', { blocks: 8 }); // 4 KiB
    const stats = (await createSummaryProvider(h.options).get()).pods[0];
    // Volumes: only the disk emptyDir (cache) and the configMap count; memory emptyDir and secret do not.
    expect(stats?.['ephemeral-storage']).toMatchObject({
      usedBytes: 10_000 + 20_000 + 8192 + 4096 + 1000 + 300 + 4096 + 4096,
      inodesUsed: 10 + 20 + 1 + 1 + 5 + 2 + 1 + 1,
      capacityBytes: 100 * GiB,
      availableBytes: 30 * GiB,
    });
    expect(stats?.volume?.map((v) => v.name)).toEqual(['cache', 'ram', 'config', 'token']);
  });

  it('starts a pod at its sandbox creation time and a container at its creation time', async () => {
    const h = harness();
    await h.clock.advance(5000);
    await runPod(h, webPod(), ['app']);
    const stats = (await createSummaryProvider(h.options).get()).pods[0];
    expect(stats?.startTime).toBe(new Date(START + 5000).toISOString());
    expect(stats?.containers[0]?.startTime).toBe(new Date(START + 5000).toISOString());
  });

  it('keeps a pod whose log directory is missing, without logs figures', async () => {
    const h = harness();
    await runPod(h, webPod(), ['app']);
    const stats = (await createSummaryProvider(h.options).get()).pods[0];
    expect(stats?.containers[0]?.logs).toBeUndefined();
    expect(stats?.['ephemeral-storage']?.capacityBytes).toBe(100 * GiB);
  });

  it('fails with RUNTIME when the runtime cannot list container stats', async () => {
    const h = harness();
    h.cri.runtime.injectError('listContainerStats', 'UNAVAILABLE');
    await expect(createSummaryProvider(h.options).get()).rejects.toMatchObject({ code: 'RUNTIME' });
  });
});

describe('createSummaryProvider options', () => {
  it('refuses an empty node name and a negative housekeeping interval', () => {
    const h = harness();
    expect(() => createSummaryProvider({ ...h.options, nodeName: '' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }));
    expect(() => createSummaryProvider({ ...h.options, housekeepingIntervalMs: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
