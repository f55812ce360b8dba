/**
 * The summary provider against the real machine and the real containerd of scripts/test-runtime.sh:
 * node figures are plausible and agree with /proc and statfs; imagefs comes from CRI ImageFsInfo; a
 * running busybox container's CPU, memory, writable layer and log file show up, with the pod cgroup's
 * usage and process count.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { createCriClient } from '@kubelet-ts/cri-client';
import { runTestSandbox, runtimeEnv as env, testSandbox, useRuntimeSuite, waitFor } from '@kubelet-ts/test-support';
import { createSummaryProvider, createVolumeStatsSource } from '../../src/index.js';
import type { CgroupUsage, Summary } from '../../src/index.js';

const CGROUP_FS = '/sys/fs/cgroup';
const suite = useRuntimeSuite({ connect: () => createCriClient({ endpoint: env('KUBELET_TS_CRI_ENDPOINT') }), tempPrefix: 'stats-it-' });

function readNumber(file: string): number {
  return Number(fs.readFileSync(file, 'utf8').trim());
}

/** The pod cgroup's usage read straight from cgroup v1 (what cgroup-manager's podStats does in the kubelet). */
function cgroupUsage(parent: string): CgroupUsage {
  const memDir = path.join(CGROUP_FS, 'memory', parent);
  const usage = readNumber(path.join(memDir, 'memory.usage_in_bytes'));
  const inactive = Number(/^total_inactive_file (\d+)$/m.exec(fs.readFileSync(path.join(memDir, 'memory.stat'), 'utf8'))?.[1] ?? 0);
  return {
    cpuUsageNanoseconds: readNumber(path.join(CGROUP_FS, 'cpuacct', parent, 'cpuacct.usage')),
    memoryUsageBytes: usage,
    memoryWorkingSetBytes: Math.max(0, usage - inactive),
  };
}

test('node figures agree with /proc, statfs and CRI ImageFsInfo', async () => {
  const { client, root: rootDir } = suite;
  const provider = createSummaryProvider({
    nodeName: 'it-node',
    rootDir,
    runtimeService: client.runtime,
    imageService: client.image,
    getPods: () => [],
  });
  const first = await provider.get({ updateStats: true });
  const { node } = first;

  const memTotal = Number(/^MemTotal:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/meminfo', 'utf8'))?.[1]) * 1024;
  expect(node.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(node.memory?.workingSetBytes).toBeLessThan(memTotal);
  expect(node.memory?.availableBytes).toBe(memTotal - (node.memory?.workingSetBytes ?? 0));
  expect(node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);

  const st = fs.statfsSync(rootDir);
  expect(node.fs?.capacityBytes).toBe(st.blocks * st.bsize);
  expect(node.fs?.inodes).toBe(st.files);
  expect(Math.abs((node.fs?.availableBytes ?? 0) - st.bavail * st.bsize)).toBeLessThan(64 * 1024 * 1024);

  const info = await client.image.imageFsInfo({});
  const mountpoint = info.imageFilesystems[0]?.fsId?.mountpoint ?? '';
  expect(node.runtime?.imageFs?.usedBytes).toBeGreaterThan(0);
  expect(node.runtime?.imageFs?.inodesUsed).toBeGreaterThan(0);
  const imageSt = fs.statfsSync(mountpoint);
  expect(node.runtime?.imageFs?.capacityBytes).toBe(imageSt.blocks * imageSt.bsize);

  const pidMax = readNumber('/proc/sys/kernel/pid_max');
  const threadsMax = readNumber('/proc/sys/kernel/threads-max');
  expect(node.rlimit?.maxpid).toBe(Math.min(pidMax, threadsMax));
  expect(node.rlimit?.curproc).toBeGreaterThan(10);
  expect(Date.parse(node.startTime)).toBeLessThan(Date.now() - 1000);
  const netDev = fs.readFileSync('/proc/net/dev', 'utf8');
  expect(node.network?.interfaces?.length).toBeGreaterThan(0);
  for (const i of node.network?.interfaces ?? []) expect(netDev).toContain(`${i.name}:`);
  expect(node.network?.interfaces?.some((i) => i.name === 'lo')).toBe(false);

  // A second sample gives a CPU rate: positive, at most all the cores.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const second = await provider.get({ updateStats: true });
  expect(second.node.cpu?.usageNanoCores).toBeGreaterThan(0);
  expect(second.node.cpu?.usageNanoCores).toBeLessThanOrEqual(os.cpus().length * 1e9 * 1.1);
});

test("a running busybox container's CPU, memory, writable layer and logs, and its pod cgroup, show up in the summary", async () => {
  const { client, root: rootDir } = suite;
  const podLogsDir = env('KUBELET_TS_POD_LOGS_DIR');
  const sandbox = testSandbox('stats', { suite: 'stats', hostNetwork: true });
  const { uid, name, cgroupParent } = sandbox;
  const { namespace } = sandbox.config.metadata;
  // An emptyDir-like volume directory with 1 MiB in it.
  const volumeDir = path.join(rootDir, 'pods', uid, 'volumes', 'kubernetes.io~empty-dir', 'cache');
  fs.mkdirSync(volumeDir, { recursive: true });
  fs.writeFileSync(path.join(volumeDir, 'blob'), Buffer.alloc(1024 * 1024, 7));

  const podSandboxId = await runTestSandbox(client.runtime, sandbox, suite.cleanup);
  const { containerId } = await client.runtime.createContainer({
    podSandboxId,
    sandboxConfig: sandbox.config,
    config: {
      metadata: { name: 'app', attempt: 0 },
      image: { image: env('KUBELET_TS_BUSYBOX_IMAGE') },
      command: [
        'sh',
        '-c',
        'echo hello from stats; dd if=/dev/zero of=/fill bs=1M count=8 2>/dev/null; while true; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.2; done',
      ],
      logPath: 'app/0.log',
      labels: { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.container.name': 'app' },
    },
  });
  await client.runtime.startContainer({ containerId });

  const pod = newPod({
    name,
    namespace,
    uid,
    containers: [{ name: 'app' }],
    spec: { hostNetwork: true, volumes: [{ name: 'cache', emptyDir: {} }] } as never,
  });
  const provider = createSummaryProvider({
    nodeName: 'it-node',
    rootDir,
    podLogsDir,
    runtimeService: client.runtime,
    imageService: client.image,
    getPods: () => [pod],
    podCgroupStats: async () => cgroupUsage(cgroupParent),
    podProcessCount: async () => readNumber(path.join(CGROUP_FS, 'pids', cgroupParent, 'pids.current')),
    volumeStats: createVolumeStatsSource({
      listVolumes: () => [{ volumeName: 'cache', pluginName: 'kubernetes.io/empty-dir', path: volumeDir }],
    }),
  });

  // containerd refreshes writable-layer usage every 10 s (its stats collect period): the 8 MiB may take that long.
  const summary: Summary = await waitFor(
    'the container with its 8 MiB writable layer and its log line in the summary',
    async () => {
      const s = await provider.get({ updateStats: true });
      const c = s.pods.find((p) => p.podRef.uid === uid)?.containers.find((x) => x.name === 'app');
      return (c?.rootfs?.usedBytes ?? 0) >= 8 * 1024 * 1024 && (c?.logs?.usedBytes ?? 0) > 0 && (c?.cpu?.usageNanoCores ?? 0) > 0
        ? s
        : undefined;
    },
    20_000,
    300,
  );
  const stats = summary.pods.find((p) => p.podRef.uid === uid);
  expect(stats?.podRef).toEqual({ name, namespace, uid });
  const app = stats?.containers.find((c) => c.name === 'app');
  expect(app?.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(app?.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(app?.rootfs?.capacityBytes).toBeGreaterThan(0);
  expect(app?.logs?.inodesUsed).toBe(1);
  expect(stats?.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(stats?.cpu?.usageCoreNanoSeconds).toBeGreaterThanOrEqual(app?.cpu?.usageCoreNanoSeconds ?? 0);
  // pause, sh (and now and then a sleep): at least two processes in the pod cgroup.
  expect(stats?.process_stats?.process_count).toBeGreaterThanOrEqual(2);
  const volume = stats?.volume?.find((v) => v.name === 'cache');
  expect(volume?.usedBytes).toBeGreaterThanOrEqual(1024 * 1024);
  const used = (app?.rootfs?.usedBytes ?? 0) + (app?.logs?.usedBytes ?? 0) + (volume?.usedBytes ?? 0);
  expect(stats?.['ephemeral-storage']?.usedBytes).toBeGreaterThanOrEqual(used);
  expect(stats?.['ephemeral-storage']?.capacityBytes).toBe(summary.node.fs?.capacityBytes);
  // A host-network pod has no network figures of its own (as upstream).
  expect(stats?.network).toBeUndefined();
});
