/**
 * Issue 7, acceptance: node-pressure eviction through the real kubelet on the real runtime. With
 * `evictionHard: memory.available<(MemTotal - 256Mi)` (met whenever the machine uses more than 256Mi,
 * yet leaving 256Mi allocatable, so the Burstable pod's 64Mi request passes admission as upstream's
 * would) and --evict-static-pods, the
 * BestEffort pod is evicted first (Failed, Evicted, a message naming the signal and the usage), the
 * Burstable one next, the critical static pod (system-node-critical) never; /node shows
 * MemoryPressure; a new BestEffort pod is refused at admission and never started.
 */
import { readFileSync } from 'node:fs';
import { busyboxPod, containerState, createKubelet, criSandboxesOf, eventually, waitHealthy } from './harness.js';
import type { ApiPod, KubeletUnderTest } from './harness.js';

/** MemTotal − 256Mi, in Ki: a memory.available threshold always met here that leaves 256Mi allocatable. */
const THRESHOLD_KI = Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1] ?? 0) - 256 * 1024;

/** evictionMonitoringPeriod (kubelet-ts configuration field): eviction checks every second instead of every 10 s. */
const FAST_CHECKS = 'evictionMonitoringPeriod: 1s';
let kubelet: KubeletUnderTest;

interface NodeConditionJson {
  type: string;
  status: string;
  reason: string;
  message: string;
}

async function nodeConditions(of: KubeletUnderTest = kubelet): Promise<NodeConditionJson[]> {
  const response = await fetch(`http://127.0.0.1:${of.readOnlyPort}/node`);
  if (response.status !== 200) throw new Error(`/node answered ${response.status}`);
  const body = (await response.json()) as { kind: string; status: { conditions: NodeConditionJson[] } };
  // The pressure conditions (the node's Ready condition is node-status's, not eviction's).
  return body.status.conditions.filter((c) => c.type !== 'Ready');
}

interface PodStatusJson {
  phase?: string;
  reason?: string;
  message?: string;
  conditions?: Array<{ type: string; status: string; reason?: string }>;
}
const statusOf = (pod: ApiPod | undefined): PodStatusJson | undefined => pod?.status as PodStatusJson | undefined;

beforeAll(async () => {
  kubelet = await createKubelet('eviction', { config: [FAST_CHECKS] });
});

afterAll(async () => {
  await kubelet.cleanup();
});

test('an emptyDir over its sizeLimit gets its pod evicted with the upstream message; a pod within its limit runs on', async () => {
  const other = await createKubelet('eviction-ed', { config: ['volumeStatsAggPeriod: 1s', FAST_CHECKS] });
  try {
    const writer = (mb: number): Array<Record<string, unknown>> => [
      {
        name: 'c',
        command: ['sh', '-c', `dd if=/dev/zero of=/data/fill bs=1048576 count=${mb} && sleep 3600`],
        volumeMounts: [{ name: 'scratch', mountPath: '/data' }],
      },
    ];
    await other.writeManifest(
      'over.yaml',
      busyboxPod('over', writer(3), { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }] }),
    );
    await other.writeManifest(
      'within.yaml',
      busyboxPod('within', writer(1), { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '10Mi' } }] }),
    );
    await other.start(['--evict-static-pods']);
    await waitHealthy(other);
    await eventually('over evicted', async () => statusOf(await other.pod('over'))?.phase === 'Failed', 60_000);
    expect(statusOf(await other.pod('over'))).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
    });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(statusOf(await other.pod('within'))?.phase).toBe('Running');
    expect((await nodeConditions(other)).every((c) => c.status === 'False')).toBe(true);
  } finally {
    await other.cleanup();
  }
}, 120_000);

test('under memory pressure: BestEffort evicted first, then Burstable, the critical static pod never; MemoryPressure visible; new BestEffort refused', async () => {
  const sleeper = [{ name: 'c', command: ['sleep', '3600'] }];
  await kubelet.writeManifest('critical.yaml', busyboxPod('critical', sleeper, { priorityClassName: 'system-node-critical' }));
  await kubelet.writeManifest('besteffort.yaml', busyboxPod('besteffort', sleeper));
  await kubelet.writeManifest('burstable.yaml', busyboxPod('burstable', [{ ...sleeper[0], resources: { requests: { memory: '64Mi' } } }]));

  // First without pressure (default thresholds do not trigger here), so that all three run and have stats.
  await kubelet.start([]);
  await waitHealthy(kubelet);
  for (const name of ['critical', 'besteffort', 'burstable']) {
    await eventually(`${name} running`, async () => containerState(await kubelet.pod(name), 'c')?.state?.running !== undefined, 60_000);
  }
  expect((await nodeConditions()).map((c) => [c.type, c.status, c.reason])).toEqual([
    ['MemoryPressure', 'False', 'KubeletHasSufficientMemory'],
    ['DiskPressure', 'False', 'KubeletHasNoDiskPressure'],
    ['PIDPressure', 'False', 'KubeletHasSufficientPID'],
  ]);

  // Then restarted (pods keep running) with a threshold that is always met.
  await kubelet.stop();
  expect(THRESHOLD_KI).toBeGreaterThan(0);
  await kubelet.start([`--eviction-hard=memory.available<${THRESHOLD_KI}Ki`, '--evict-static-pods']);
  await waitHealthy(kubelet);

  await eventually(
    'MemoryPressure on /node',
    async () => (await nodeConditions()).find((c) => c.type === 'MemoryPressure')?.status === 'True',
    30_000,
  );
  expect((await nodeConditions()).find((c) => c.type === 'MemoryPressure')).toMatchObject({
    reason: 'KubeletHasInsufficientMemory',
    message: 'kubelet has insufficient memory available',
  });

  const failedAt = new Map<string, number>();
  await eventually(
    'besteffort and burstable evicted',
    async () => {
      for (const name of ['besteffort', 'burstable', 'critical']) {
        if (!failedAt.has(name) && statusOf(await kubelet.pod(name))?.phase === 'Failed') failedAt.set(name, Date.now());
      }
      return failedAt.has('besteffort') && failedAt.has('burstable');
    },
    60_000,
    100,
  );
  expect(failedAt.get('besteffort')).toBeLessThan(failedAt.get('burstable') as number);

  const be = statusOf(await kubelet.pod('besteffort'));
  expect(be).toMatchObject({ phase: 'Failed', reason: 'Evicted' });
  expect(be?.message).toMatch(
    /^The node was low on resource: memory\. Threshold quantity: \d+(Ki|Mi|Gi)?, available: \d+(Ki|Mi|Gi)?\. Container c was using \d+(Ki|Mi)?, request is 0, has larger consumption of memory\. $/,
  );
  expect(be?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'TerminationByKubelet' });
  expect(statusOf(await kubelet.pod('burstable'))).toMatchObject({ phase: 'Failed', reason: 'Evicted' });

  // Evicted pods stop (the kill may take a while on a loaded machine) and stay stopped while their
  // manifests remain; the critical pod runs on, never restarted.
  for (const name of ['besteffort', 'burstable']) {
    await eventually(`${name} stopped`, async () => containerState(await kubelet.pod(name), 'c')?.state?.running === undefined, 30_000);
  }
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  for (const name of ['besteffort', 'burstable']) {
    expect(statusOf(await kubelet.pod(name))?.phase).toBe('Failed');
    expect(containerState(await kubelet.pod(name), 'c')?.state?.running).toBeUndefined();
  }
  const critical = await kubelet.pod('critical');
  expect(statusOf(critical)?.phase).toBe('Running');
  expect(containerState(critical, 'c')?.restartCount).toBe(0);
  expect(failedAt.has('critical')).toBe(false);
  expect(kubelet.output()).toContain('cannot evict a critical pod');

  // Admission: a new BestEffort pod is refused and never started.
  await kubelet.writeManifest('late.yaml', busyboxPod('late', sleeper));
  await eventually('late pod refused', async () => statusOf(await kubelet.pod('late'))?.phase === 'Failed', 30_000);
  expect(statusOf(await kubelet.pod('late'))).toMatchObject({
    phase: 'Failed',
    reason: 'Evicted',
    message: 'Pod was rejected: The node had condition: [MemoryPressure]. ',
  });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  expect(await criSandboxesOf(kubelet, 'late')).toEqual([]);
}, 180_000);
