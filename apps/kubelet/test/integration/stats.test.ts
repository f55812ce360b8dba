/**
 * Issue 7, stats: the kubelet serves the Summary API on its read-only port. A running busybox static
 * pod appears in /stats/summary with its container's memory working set and CPU; the node reports
 * filesystem, image filesystem, memory and rlimit figures; only_cpu_and_memory=true trims the rest.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { busyboxPod, createKubelet, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

interface Fs {
  capacityBytes?: number;
  availableBytes?: number;
  usedBytes?: number;
  inodes?: number;
  inodesUsed?: number;
}
interface Container {
  name: string;
  cpu?: { usageCoreNanoSeconds?: number; usageNanoCores?: number };
  memory?: { workingSetBytes?: number };
  rootfs?: Fs;
  logs?: Fs;
}
interface SummaryBody {
  node: {
    nodeName: string;
    cpu?: { usageCoreNanoSeconds?: number };
    memory?: { workingSetBytes?: number; availableBytes?: number };
    fs?: Fs;
    runtime?: { imageFs?: Fs };
    rlimit?: { maxpid?: number; curproc?: number };
    systemContainers?: Array<{ name: string }>;
  };
  pods: Array<{
    podRef: { name: string; namespace: string; uid: string };
    containers: Container[];
    memory?: { workingSetBytes?: number };
    'ephemeral-storage'?: Fs;
    process_stats?: { process_count?: number };
    network?: { name: string; rxBytes?: number; interfaces?: Array<{ name: string }> };
  }>;
}

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  // Summaries cached for 1 s instead of 10 s (kubelet-ts statsHousekeepingInterval), so that the test sees the running pod within seconds.
  kubelet = await createKubelet('stats', { config: ['statsHousekeepingInterval: 1s'] });
  await kubelet.start([]);
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

/** Bytes in the pod's container log files under podLogsDir. */
async function criLogSize(k: KubeletUnderTest, podName: string): Promise<number> {
  const dirs = (await fs.readdir(k.podLogsDir)).filter((d) => d.startsWith(`default_${podName}-${k.nodeName}_`));
  let size = 0;
  for (const d of dirs) {
    for (const c of await fs.readdir(path.join(k.podLogsDir, d))) {
      for (const f of await fs.readdir(path.join(k.podLogsDir, d, c)).catch(() => []))
        size += (await fs.stat(path.join(k.podLogsDir, d, c, f))).size;
    }
  }
  return size;
}

async function summary(query = ''): Promise<SummaryBody> {
  const response = await fetch(`http://127.0.0.1:${kubelet.readOnlyPort}/stats/summary${query}`);
  if (response.status !== 200) throw new Error(`/stats/summary answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as SummaryBody;
}

test('a running busybox static pod appears in /stats/summary with memory and CPU; the node has fs, imageFs, memory and rlimit figures', async () => {
  await kubelet.writeManifest(
    'busy.yaml',
    busyboxPod('busy', [
      {
        name: 'burn',
        command: ['sh', '-c', 'echo started; while true; do i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.1; done'],
      },
    ]),
  );
  const fullName = `busy-${kubelet.nodeName}`;
  // Ask once the container runs and has logged. A served summary may still be up to 10 s old (the
  // housekeeping interval; eviction's fresh collections refresh it), so the pod can take that long to appear.
  await eventually(
    'busy running',
    async () => (await kubelet.pod('busy'))?.status?.containerStatuses?.[0]?.state?.running !== undefined,
    20_000,
    100,
  );
  await eventually('the log line written', async () => (await criLogSize(kubelet, 'busy')) > 0, 10_000, 100);
  const body = await eventually(
    'busy with a container working set in /stats/summary',
    async () => {
      const s = await summary();
      const pod = s.pods.find((p) => p.podRef.name === fullName);
      const burn = pod?.containers.find((c) => c.name === 'burn');
      return (burn?.memory?.workingSetBytes ?? 0) > 0 && (burn?.cpu?.usageCoreNanoSeconds ?? 0) > 0 ? s : undefined;
    },
    40_000,
    500,
  );
  const pod = body.pods.find((p) => p.podRef.name === fullName);
  expect(pod?.podRef.namespace).toBe('default');
  expect(pod?.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(pod?.process_stats?.process_count).toBeGreaterThanOrEqual(2);
  // The pod's own network namespace (CNI): its eth0 counters.
  expect(pod?.network?.name).toBe('eth0');
  expect(pod?.network?.interfaces?.map((i) => i.name)).toEqual(['eth0']);
  const burn = pod?.containers.find((c) => c.name === 'burn');
  expect(burn?.logs?.usedBytes).toBeGreaterThan(0);
  expect(burn?.rootfs?.capacityBytes).toBeGreaterThan(0);
  expect(pod?.['ephemeral-storage']?.usedBytes).toBeGreaterThanOrEqual(burn?.logs?.usedBytes ?? 0);

  const { node } = body;
  expect(node.nodeName).toBe(kubelet.nodeName);
  expect(node.cpu?.usageCoreNanoSeconds).toBeGreaterThan(0);
  expect(node.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(node.memory?.availableBytes).toBeGreaterThan(0);
  expect(node.fs?.capacityBytes).toBeGreaterThan(0);
  expect(node.fs?.availableBytes).toBeGreaterThan(0);
  expect(node.fs?.inodesUsed).toBeGreaterThan(0);
  expect(node.runtime?.imageFs?.usedBytes).toBeGreaterThan(0);
  expect(node.runtime?.imageFs?.capacityBytes).toBeGreaterThan(0);
  expect(node.rlimit?.maxpid).toBeGreaterThan(0);
  expect(node.rlimit?.curproc).toBeGreaterThan(0);
  expect(node.systemContainers?.map((c) => c.name)).toEqual(['pods']);

  const slim = await summary('?only_cpu_and_memory=true');
  expect(slim.node.fs).toBeUndefined();
  expect(slim.node.memory?.workingSetBytes).toBeGreaterThan(0);
  const slimPod = slim.pods.find((p) => p.podRef.name === fullName);
  expect(slimPod?.containers.find((c) => c.name === 'burn')?.memory?.workingSetBytes).toBeGreaterThan(0);
  expect(slimPod?.['ephemeral-storage']).toBeUndefined();
});
