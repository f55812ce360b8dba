import type { Pod } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger, RecordingMetrics, flushMicrotasks } from '@kubelet-ts/common/testing';
import { FakeSummaryProvider, newPodStats, newSummary } from '@kubelet-ts/stats/testing';
import type { NewPodStatsOptions, NewSummaryOptions } from '@kubelet-ts/stats/testing';
import { createEvictionManager } from './manager.js';
import type { EvictionManagerOptions, KillPodRequest } from './manager.js';
import type { EvictionConfig } from './thresholds.js';

const Mi = 1024 * 1024;
const Gi = 1024 * Mi;

function pod(
  name: string,
  opts: {
    memRequest?: string;
    priority?: number;
    priorityClassName?: string;
    annotations?: Record<string, string>;
    grace?: number;
    ephemeralRequest?: string;
  } = {},
): Pod {
  const requests: Record<string, string> = {};
  if (opts.memRequest !== undefined) requests['memory'] = opts.memRequest;
  if (opts.ephemeralRequest !== undefined) requests['ephemeral-storage'] = opts.ephemeralRequest;
  return newPod({
    name,
    uid: `uid-${name}`,
    ...(opts.annotations !== undefined ? { annotations: opts.annotations } : {}),
    containers: [{ name: 'app', ...(Object.keys(requests).length > 0 ? { resources: { requests } } : {}) }],
    spec: {
      ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
      ...(opts.priorityClassName !== undefined ? { priorityClassName: opts.priorityClassName } : {}),
      ...(opts.grace !== undefined ? { terminationGracePeriodSeconds: opts.grace } : {}),
    } as Pod['spec'],
  });
}

function stats(name: string, o: NewPodStatsOptions = {}): ReturnType<typeof newPodStats> {
  return newPodStats({ name, uid: `uid-${name}`, ...o });
}

interface Setup {
  clock: FakeClock;
  provider: FakeSummaryProvider;
  killed: Array<{ pod: string; request: KillPodRequest }>;
  pods: Pod[];
  logger: RecordingLogger;
  manager: ReturnType<typeof createEvictionManager>;
  set(summary: NewSummaryOptions): void;
}

function setup(config: EvictionConfig, pods: Pod[], extra: Partial<EvictionManagerOptions> = {}): Setup {
  const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const provider = new FakeSummaryProvider();
  const killed: Setup['killed'] = [];
  const logger = new RecordingLogger();
  const manager = createEvictionManager({
    summaryProvider: provider,
    getActivePods: () => pods,
    killPod: async (p, request) => {
      killed.push({ pod: p.metadata.name, request });
    },
    config,
    clock,
    logger,
    ...extra,
  });
  return { clock, provider, killed, pods, logger, manager, set: (s) => provider.set(newSummary(s)) };
}

const MEMORY_8G = { capacityBytes: 8 * Gi };

describe('signals and threshold forms', () => {
  it.each([
    [
      'memory.available quantity',
      { evictionHard: { 'memory.available': '100Mi' } },
      { memory: { ...MEMORY_8G, workingSetBytes: 8 * Gi - 50 * Mi } },
      'MemoryPressure',
    ],
    [
      'memory.available percentage',
      { evictionHard: { 'memory.available': '10%' } },
      { memory: { ...MEMORY_8G, workingSetBytes: 7.5 * Gi } },
      'MemoryPressure',
    ],
    [
      'nodefs.available percentage',
      { evictionHard: { 'nodefs.available': '10%' } },
      { fs: { capacityBytes: 100 * Gi, usedBytes: 95 * Gi } },
      'DiskPressure',
    ],
    [
      'nodefs.inodesFree percentage',
      { evictionHard: { 'nodefs.inodesFree': '5%' } },
      { fs: { inodes: 1000, inodesUsed: 990 } },
      'DiskPressure',
    ],
    [
      'imagefs.available quantity',
      { evictionHard: { 'imagefs.available': '20Gi' } },
      { imageFs: { capacityBytes: 100 * Gi, usedBytes: 90 * Gi } },
      'DiskPressure',
    ],
    [
      'imagefs.inodesFree quantity',
      { evictionHard: { 'imagefs.inodesFree': '100' } },
      { imageFs: { inodes: 1000, inodesUsed: 950 } },
      'DiskPressure',
    ],
    ['pid.available quantity', { evictionHard: { 'pid.available': '1000' } }, { rlimit: { maxpid: 4000, curproc: 3500 } }, 'PIDPressure'],
    ['pid.available percentage', { evictionHard: { 'pid.available': '20%' } }, { rlimit: { maxpid: 1000, curproc: 900 } }, 'PIDPressure'],
  ] as const)('%s: met → condition, not met → none', async (_name, config, pressured, condition) => {
    const s = setup(config as EvictionConfig, []);
    s.set({});
    await s.manager.synchronize();
    expect(s.manager.pressureConditions()).toEqual([]);
    s.set(pressured as NewSummaryOptions);
    await s.manager.synchronize();
    expect(s.manager.pressureConditions()).toEqual([condition]);
  });

  it('applies the upstream defaults when given DEFAULT_EVICTION_HARD', async () => {
    const { DEFAULT_EVICTION_HARD } = await import('./constants.js');
    const s = setup({ evictionHard: { ...DEFAULT_EVICTION_HARD } }, []);
    expect(s.manager.thresholds.map((t) => t.signal).sort()).toEqual([
      'imagefs.available',
      'memory.available',
      'nodefs.available',
      'nodefs.inodesFree',
    ]);
    s.set({ imageFs: { capacityBytes: 100 * Gi, usedBytes: 86 * Gi } });
    await s.manager.synchronize();
    expect(s.manager.isUnderDiskPressure()).toBe(true);
  });

  it('rejects an unknown signal, a bad value and a soft threshold without grace period', () => {
    expect(() => setup({ evictionHard: { 'memory.availble': '1Gi' } }, [])).toThrow(/unsupported eviction signal/);
    expect(() => setup({ evictionHard: { 'memory.available': '120%' } }, [])).toThrow(/must be >= 0% and <= 100%/);
    expect(() => setup({ evictionSoft: { 'memory.available': '1Gi' } }, [])).toThrow(/grace period must be specified/);
  });
});

describe('eviction of one pod per cycle, ranked as upstream', () => {
  const pressure = { memory: { ...MEMORY_8G, workingSetBytes: 8 * Gi - 50 * Mi } };

  it('memory: pods over their requests first, then lower priority, then usage above requests; message names signal and usage', async () => {
    const pods = [
      pod('guaranteed-ish', { memRequest: '1Gi' }),
      pod('low-prio', { memRequest: '10Mi', priority: -10 }),
      pod('besteffort'),
      pod('big', { memRequest: '10Mi' }),
    ];
    const metrics = new RecordingMetrics();
    const s = setup({ evictionHard: { 'memory.available': '100Mi' } }, pods, { metrics });
    const podStats = [
      stats('guaranteed-ish', { memoryWorkingSetBytes: 500 * Mi, containers: [{ name: 'app', memoryWorkingSetBytes: 500 * Mi }] }),
      stats('low-prio', { memoryWorkingSetBytes: 5 * Mi, containers: [{ name: 'app', memoryWorkingSetBytes: 5 * Mi }] }),
      stats('besteffort', { memoryWorkingSetBytes: 20 * Mi, containers: [{ name: 'app', memoryWorkingSetBytes: 20 * Mi }] }),
      stats('big', { memoryWorkingSetBytes: 300 * Mi, containers: [{ name: 'app', memoryWorkingSetBytes: 300 * Mi }] }),
    ];
    s.set({ ...pressure, pods: podStats, time: '2025-12-31T23:59:58Z' });
    const evicted = await s.manager.synchronize();
    // big exceeds by 290Mi, besteffort by 20Mi; low-prio and guaranteed-ish are within requests.
    expect(evicted.map((p) => p.metadata.name)).toEqual(['big']);
    expect(s.killed).toHaveLength(1);
    expect(metrics.samples('kubelet_evictions').map((x) => [x.labels, x.value])).toEqual([[{ eviction_signal: 'memory.available' }, 1]]);
    // The memory figures were taken 2 s before the pods were ranked.
    expect(metrics.observations('kubelet_eviction_stats_age_seconds', { eviction_signal: 'memory.available' })).toEqual([2]);
    expect(s.killed[0]?.request).toEqual({
      gracePeriodSeconds: 1,
      reason: 'Evicted',
      message:
        'The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. Container app was using 300Mi, request is 10Mi, has larger consumption of memory. ',
      condition: {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'TerminationByKubelet',
        message: expect.stringContaining('low on resource: memory'),
      },
    });
    // Next cycle: besteffort (exceeds) before low-prio and guaranteed-ish.
    s.pods.splice(
      s.pods.findIndex((p) => p.metadata.name === 'big'),
      1,
    );
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['big', 'besteffort']);
    s.pods.splice(
      s.pods.findIndex((p) => p.metadata.name === 'besteffort'),
      1,
    );
    await s.manager.synchronize();
    // Neither exceeds: lower priority first.
    expect(s.killed.map((k) => k.pod)).toEqual(['big', 'besteffort', 'low-prio']);
  });

  it('pods without stats rank first', async () => {
    const pods = [pod('measured'), pod('unmeasured')];
    const s = setup({ evictionHard: { 'memory.available': '100Mi' } }, pods);
    s.set({ ...pressure, pods: [stats('measured', { memoryWorkingSetBytes: 900 * Mi })] });
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['unmeasured']);
  });

  it('never evicts critical pods: static, mirror, priority ≥ 2e9, system-node-critical class; evicts the next one', async () => {
    const pods = [
      pod('static', { annotations: { 'kubernetes.io/config.source': 'file' } }),
      pod('mirror', { annotations: { 'kubernetes.io/config.mirror': 'x' } }),
      pod('prio', { priority: 2_000_000_000 }),
      pod('nodecritical', { priorityClassName: 'system-node-critical' }),
      pod('victim', { memRequest: '1Gi' }),
    ];
    const s = setup({ evictionHard: { 'memory.available': '100Mi' } }, pods);
    s.set({
      ...pressure,
      pods: pods.map((p) => stats(p.metadata.name, { memoryWorkingSetBytes: (p.metadata.name === 'victim' ? 1 : 800) * Mi })),
    });
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['victim']);
    expect(s.logger.records.some((r) => r.msg === 'Eviction manager: cannot evict a critical pod')).toBe(true);
  });

  it('with evictStaticPods, a static pod is critical only by priority', async () => {
    const src = { 'kubernetes.io/config.source': 'file' };
    const pods = [
      pod('static-critical', { annotations: src, priorityClassName: 'system-node-critical' }),
      pod('static-be', { annotations: src }),
    ];
    const s = setup({ evictionHard: { 'memory.available': '100Mi' } }, pods, { evictStaticPods: true });
    s.set({
      ...pressure,
      pods: [stats('static-critical', { memoryWorkingSetBytes: 900 * Mi }), stats('static-be', { memoryWorkingSetBytes: 1 * Mi })],
    });
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['static-be']);
  });

  it('pid: priority first, then process count', async () => {
    const pods = [pod('few'), pod('many'), pod('important', { priority: 1000 })];
    const s = setup({ evictionHard: { 'pid.available': '1000' } }, pods);
    s.set({
      rlimit: { maxpid: 2000, curproc: 1500 },
      pods: [stats('few', { processCount: 2 }), stats('many', { processCount: 900 }), stats('important', { processCount: 5000 })],
    });
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['many']);
    expect(s.killed[0]?.request.message).toBe('The node was low on resource: pids. Threshold quantity: 1000, available: 500. ');
  });

  it('disk: over the ephemeral-storage request first, then priority, then usage; nodefs reclaims dead containers and images first', async () => {
    const pods = [pod('small'), pod('requested', { ephemeralRequest: '10Gi' }), pod('large')];
    const reclaimed: string[] = [];
    const s = setup({ evictionHard: { 'nodefs.available': '10%' } }, pods, {
      deleteDeadContainers: async () => reclaimed.push('containers'),
      reclaimImages: async () => reclaimed.push('images'),
    });
    s.set({
      fs: { capacityBytes: 100 * Gi, usedBytes: 95 * Gi },
      pods: [
        stats('small', { containers: [{ name: 'app', rootfsUsedBytes: 1 * Mi, logsUsedBytes: 1 * Mi }] }),
        stats('requested', { containers: [{ name: 'app', rootfsUsedBytes: 5 * Gi, logsUsedBytes: 0 }] }),
        stats('large', { containers: [{ name: 'app', rootfsUsedBytes: 2 * Gi, logsUsedBytes: 1 * Gi }] }),
      ],
    });
    await s.manager.synchronize();
    expect(reclaimed).toEqual(['containers', 'images']);
    expect(s.killed.map((k) => k.pod)).toEqual(['large']);
    expect(s.killed[0]?.request.message).toBe(
      'The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 5Gi. Container app was using 3Gi, request is 0, has larger consumption of ephemeral-storage. ',
    );
  });

  it('node-level reclaim that relieves the pressure (with minimum reclaim) evicts nothing', async () => {
    const pods = [pod('a')];
    const s = setup({ evictionHard: { 'imagefs.available': '10Gi' }, evictionMinimumReclaim: { 'imagefs.available': '5Gi' } }, pods, {
      reclaimImages: async () => {
        s.set({ imageFs: { capacityBytes: 100 * Gi, usedBytes: 84 * Gi }, pods: [stats('a')] });
      },
    });
    s.set({ imageFs: { capacityBytes: 100 * Gi, usedBytes: 95 * Gi }, pods: [stats('a')] });
    await s.manager.synchronize();
    expect(s.killed).toEqual([]);
    expect(s.logger.records.some((r) => r.msg.includes('able to reduce resource pressure without evicting pods'))).toBe(true);
  });

  it('node-level reclaim short of the minimum reclaim still evicts', async () => {
    const pods = [pod('a')];
    const s = setup({ evictionHard: { 'imagefs.available': '10Gi' }, evictionMinimumReclaim: { 'imagefs.available': '5Gi' } }, pods, {
      reclaimImages: async () => {
        s.set({ imageFs: { capacityBytes: 100 * Gi, usedBytes: 88 * Gi }, pods: [stats('a')] });
      },
    });
    s.set({ imageFs: { capacityBytes: 100 * Gi, usedBytes: 95 * Gi }, pods: [stats('a')] });
    await s.manager.synchronize();
    expect(s.killed.map((k) => k.pod)).toEqual(['a']);
  });

  it('memory is reclaimed before disk when both are met', async () => {
    const pods = [pod('a')];
    const s = setup({ evictionHard: { 'nodefs.available': '10%', 'memory.available': '100Mi' } }, pods);
    s.set({ ...pressure, fs: { capacityBytes: 100 * Gi, usedBytes: 95 * Gi }, pods: [stats('a')] });
    await s.manager.synchronize();
    expect(s.killed[0]?.request.message).toMatch(/^The node was low on resource: memory\./);
    expect(s.manager.pressureConditions()).toEqual(['MemoryPressure', 'DiskPressure']);
  });
});

describe('grace periods and condition transitions', () => {
  const pressure = { memory: { ...MEMORY_8G, workingSetBytes: 8 * Gi - 500 * Mi } };

  it('a soft threshold sets the condition at once but evicts only after its grace period, with min(maxPodGrace, pod grace)', async () => {
    const pods = [pod('a', { grace: 20 }), pod('b')];
    const s = setup(
      {
        evictionSoft: { 'memory.available': '1Gi' },
        evictionSoftGracePeriodMs: { 'memory.available': 60_000 },
        evictionMaxPodGracePeriodSeconds: 30,
      },
      pods,
    );
    s.set({ ...pressure, pods: [stats('a', { memoryWorkingSetBytes: 900 * Mi }), stats('b', { memoryWorkingSetBytes: 100 * Mi })] });
    await s.manager.synchronize();
    expect(s.manager.isUnderMemoryPressure()).toBe(true);
    expect(s.killed).toEqual([]);
    await s.clock.advance(59_000);
    await s.manager.synchronize();
    expect(s.killed).toEqual([]);
    await s.clock.advance(1_000);
    await s.manager.synchronize();
    expect(s.killed.map((k) => [k.pod, k.request.gracePeriodSeconds])).toEqual([['a', 20]]);
    s.pods.shift();
    await s.manager.synchronize();
    expect(s.killed.map((k) => [k.pod, k.request.gracePeriodSeconds])).toEqual([
      ['a', 20],
      ['b', 30],
    ]);
  });

  it('a soft threshold that clears before its grace period restarts the clock', async () => {
    const s = setup({ evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriodMs: { 'memory.available': 60_000 } }, [pod('a')]);
    s.set({ ...pressure, pods: [stats('a')] });
    await s.manager.synchronize();
    await s.clock.advance(50_000);
    s.set({ pods: [stats('a')] });
    await s.manager.synchronize();
    await s.clock.advance(10_000);
    s.set({ ...pressure, pods: [stats('a')] });
    await s.manager.synchronize();
    await s.clock.advance(30_000);
    await s.manager.synchronize();
    expect(s.killed).toEqual([]);
  });

  it('the condition stays for the pressure transition period after the signal recovered, then clears; transitions are logged and timed', async () => {
    const s = setup({ evictionHard: { 'memory.available': '1Gi' }, evictionPressureTransitionPeriodMs: 300_000 }, []);
    const seen: string[][] = [];
    s.manager.onConditionChange((c) => seen.push([...c]));
    s.set(pressure);
    await s.manager.synchronize();
    const mp = (): ReturnType<typeof s.manager.nodeConditions>[number] | undefined =>
      s.manager.nodeConditions().find((c) => c.type === 'MemoryPressure');
    expect(mp()).toMatchObject({
      status: 'True',
      reason: 'KubeletHasInsufficientMemory',
      message: 'kubelet has insufficient memory available',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    await s.clock.advance(10_000);
    s.set({});
    await s.manager.synchronize();
    await s.clock.advance(289_000);
    await s.manager.synchronize();
    expect(s.manager.isUnderMemoryPressure()).toBe(true);
    await s.clock.advance(1_000);
    await s.manager.synchronize();
    expect(s.manager.isUnderMemoryPressure()).toBe(false);
    expect(mp()).toMatchObject({
      status: 'False',
      reason: 'KubeletHasSufficientMemory',
      message: 'kubelet has sufficient memory available',
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
    expect(seen).toEqual([['MemoryPressure'], []]);
    expect(s.logger.records.filter((r) => r.msg === 'Node condition changed').map((r) => r.fields['status'])).toEqual(['True', 'False']);
    expect(s.manager.nodeConditions().map((c) => [c.type, c.reason])).toEqual([
      ['MemoryPressure', 'KubeletHasSufficientMemory'],
      ['DiskPressure', 'KubeletHasNoDiskPressure'],
      ['PIDPressure', 'KubeletHasSufficientPID'],
    ]);
  });

  it('DiskPressure and PIDPressure carry upstream reasons', async () => {
    const s = setup({ evictionHard: { 'nodefs.available': '10%', 'pid.available': '1000' } }, []);
    s.set({ fs: { capacityBytes: 100, usedBytes: 95 }, rlimit: { maxpid: 1500, curproc: 1000 } });
    await s.manager.synchronize();
    expect(s.manager.nodeConditions().map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
      ['DiskPressure', 'True', 'KubeletHasDiskPressure', 'kubelet has disk pressure'],
      ['PIDPressure', 'True', 'KubeletHasInsufficientPID', 'kubelet has insufficient PID available'],
    ]);
  });

  it('minimum reclaim keeps a met threshold until the extra amount is free', async () => {
    const s = setup(
      {
        evictionHard: { 'memory.available': '1Gi' },
        evictionMinimumReclaim: { 'memory.available': '500Mi' },
        evictionPressureTransitionPeriodMs: 0,
      },
      [pod('a'), pod('b')],
    );
    s.set({ ...pressure, pods: [stats('a'), stats('b')] });
    await s.manager.synchronize();
    expect(s.killed).toHaveLength(1);
    // 1.2Gi available: above the threshold, below threshold + min reclaim → still acting.
    s.set({ memory: { ...MEMORY_8G, workingSetBytes: 8 * Gi - 1229 * Mi }, pods: [stats('a'), stats('b')] });
    await s.manager.synchronize();
    expect(s.killed).toHaveLength(2);
    s.set({ memory: { ...MEMORY_8G, workingSetBytes: 4 * Gi }, pods: [stats('a'), stats('b')] });
    await s.manager.synchronize();
    expect(s.killed).toHaveLength(2);
  });
});

describe('local storage limits', () => {
  it('evicts for an emptyDir over its sizeLimit, a container over its ephemeral-storage limit, a pod over the sum; grace 0', async () => {
    const withEmptyDir = newPod({
      name: 'ed',
      uid: 'uid-ed',
      containers: [{ name: 'app' }],
      spec: { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }] } as Pod['spec'],
    });
    const withLimit = newPod({
      name: 'cl',
      uid: 'uid-cl',
      containers: [
        { name: 'app', resources: { limits: { 'ephemeral-storage': '10Mi' } } },
        { name: 'side', resources: { limits: { 'ephemeral-storage': '100Mi' } } },
      ],
    });
    const podLimit = newPod({
      name: 'pl',
      uid: 'uid-pl',
      containers: [
        { name: 'a', resources: { limits: { 'ephemeral-storage': '10Mi' } } },
        { name: 'b', resources: { limits: { 'ephemeral-storage': '10Mi' } } },
      ],
      spec: { volumes: [{ name: 'v', emptyDir: {} }] } as Pod['spec'],
    });
    const fine = newPod({
      name: 'fine',
      uid: 'uid-fine',
      containers: [{ name: 'app', resources: { limits: { 'ephemeral-storage': '1Gi' } } }],
    });
    const metrics = new RecordingMetrics();
    const s = setup({}, [withEmptyDir, withLimit, podLimit, fine], { metrics });
    s.set({
      pods: [
        stats('ed', { volumes: [{ name: 'scratch', usedBytes: 2 * Mi }] }),
        stats('cl', { containers: [{ name: 'app', rootfsUsedBytes: 8 * Mi, logsUsedBytes: 3 * Mi }, { name: 'side' }] }),
        stats('pl', {
          containers: [
            { name: 'a', rootfsUsedBytes: 9 * Mi },
            { name: 'b', rootfsUsedBytes: 9 * Mi },
          ],
          volumes: [{ name: 'v', usedBytes: 3 * Mi }],
        }),
        stats('fine', { containers: [{ name: 'app', rootfsUsedBytes: 1 * Mi }] }),
      ],
    });
    const evicted = await s.manager.synchronize();
    expect(evicted.map((p) => p.metadata.name)).toEqual(['ed', 'cl', 'pl']);
    // Upstream's local-storage signals (pl's containers are each within their limits: the pod's sum is not).
    expect(metrics.samples('kubelet_evictions').map((x) => [x.labels, x.value])).toEqual([
      [{ eviction_signal: 'emptydirfs.limit' }, 1],
      [{ eviction_signal: 'ephemeralcontainerfs.limit' }, 1],
      [{ eviction_signal: 'ephemeralpodfs.limit' }, 1],
    ]);
    expect(s.killed.map((k) => [k.request.message, k.request.gracePeriodSeconds])).toEqual([
      ['Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ', 0],
      ['Container app exceeded its local ephemeral storage limit "10Mi". ', 0],
      ['Pod ephemeral local storage usage exceeds the total limit of containers 20Mi. ', 0],
    ]);
  });

  it('asks for the node and the pods with local-storage limits only, and for every pod once it must rank', async () => {
    const limited = newPod({
      name: 'ed',
      uid: 'uid-ed',
      containers: [{ name: 'app' }],
      spec: { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }] } as Pod['spec'],
    });
    const initLimited = newPod({
      name: 'il',
      uid: 'uid-il',
      containers: [{ name: 'app' }],
      spec: { initContainers: [{ name: 'init', image: 'busybox', resources: { limits: { 'ephemeral-storage': '1Gi' } } }] } as Partial<
        Pod['spec']
      > as Pod['spec'],
    });
    const plain = [pod('a'), pod('b', { memRequest: '10Mi' })];
    const s = setup({ evictionHard: { 'memory.available': '100Mi' } }, [limited, initLimited, ...plain]);
    s.set({ pods: [stats('ed'), stats('il'), stats('a'), stats('b')] });
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.provider.calls).toEqual([{ updateStats: true, podUIDs: ['uid-ed', 'uid-il'] }]);

    s.set({
      memory: { ...MEMORY_8G, workingSetBytes: 8 * Gi - 50 * Mi },
      pods: [
        stats('ed'),
        stats('il'),
        stats('a', { memoryWorkingSetBytes: 5 * Mi }),
        stats('b', { memoryWorkingSetBytes: 50 * Mi, containers: [{ name: 'app', memoryWorkingSetBytes: 50 * Mi }] }),
      ],
    });
    const evicted = await s.manager.synchronize();
    // Ranked with every pod's figures: b is 40Mi over its request.
    expect(evicted.map((p) => p.metadata.name)).toEqual(['b']);
    expect(s.provider.calls.slice(1)).toEqual([{ updateStats: true, podUIDs: ['uid-ed', 'uid-il'] }, { updateStats: true }]);
  });

  it('is off with localStorageCapacityIsolation: false', async () => {
    const p = newPod({
      name: 'ed',
      uid: 'uid-ed',
      containers: [{ name: 'app' }],
      spec: { volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }] } as Pod['spec'],
    });
    const s = setup({}, [p], { localStorageCapacityIsolation: false });
    s.set({ pods: [stats('ed', { volumes: [{ name: 'scratch', usedBytes: 2 * Mi }] })] });
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.provider.calls).toEqual([{ updateStats: true, podUIDs: [] }]);
  });
});

describe('admission', () => {
  const be = pod('be');
  const burstable = pod('burst', { memRequest: '10Mi' });
  const critical = pod('crit', { priorityClassName: 'system-cluster-critical' });

  it('admits everything without pressure; under memory pressure refuses only BestEffort (unless it tolerates the taint)', async () => {
    const s = setup({ evictionHard: { 'memory.available': '1Gi' } }, []);
    s.set({});
    await s.manager.synchronize();
    expect(s.manager.admit(be)).toEqual({ admit: true });
    s.set({ memory: { ...MEMORY_8G, workingSetBytes: 7.5 * Gi } });
    await s.manager.synchronize();
    expect(s.manager.admit(be)).toEqual({ admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
    expect(s.manager.admit(burstable)).toEqual({ admit: true });
    expect(s.manager.admit(critical)).toEqual({ admit: true });
    const tolerant = newPod({
      name: 't',
      containers: [{ name: 'app' }],
      spec: { tolerations: [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }] } as Pod['spec'],
    });
    expect(s.manager.admit(tolerant)).toEqual({ admit: true });
  });

  it('under disk or PID pressure refuses every non-critical pod', async () => {
    const s = setup({ evictionHard: { 'nodefs.available': '10%', 'pid.available': '100', 'memory.available': '1Gi' } }, []);
    s.set({ fs: { capacityBytes: 100, usedBytes: 95 }, memory: { ...MEMORY_8G, workingSetBytes: 7.5 * Gi } });
    await s.manager.synchronize();
    expect(s.manager.admit(burstable)).toEqual({
      admit: false,
      reason: 'Evicted',
      message: 'The node had condition: [MemoryPressure DiskPressure]. ',
    });
    expect(s.manager.admit(critical)).toEqual({ admit: true });
    const p = setup({ evictionHard: { 'pid.available': '100' } }, []);
    p.set({ rlimit: { maxpid: 150, curproc: 100 } });
    await p.manager.synchronize();
    expect(p.manager.admit(burstable)).toEqual({ admit: false, reason: 'Evicted', message: 'The node had condition: [PIDPressure]. ' });
  });
});

describe('run', () => {
  it('synchronizes every monitoring interval and waits for evicted pods to be cleaned up', async () => {
    const pods = [pod('a')];
    let cleaned = false;
    const s = setup({ evictionHard: { 'memory.available': '1Gi' } }, pods, { monitoringIntervalMs: 10_000, podCleanedUp: () => cleaned });
    s.set({ memory: { ...MEMORY_8G, workingSetBytes: 7.5 * Gi }, pods: [stats('a')] });
    const ac = new AbortController();
    const running = s.manager.run(ac.signal);
    await flushMicrotasks();
    expect(s.killed).toHaveLength(1);
    const callsAfterFirst = s.provider.calls.length;
    await s.clock.advance(5_000);
    expect(s.provider.calls.length).toBe(callsAfterFirst); // still waiting for cleanup
    cleaned = true;
    pods.splice(0);
    await s.clock.advance(1_000);
    await s.clock.advance(10_000);
    expect(s.provider.calls.length).toBeGreaterThan(callsAfterFirst);
    ac.abort();
    await running;
  });

  it('a failing summary is logged and the cycle evicts nothing', async () => {
    const s = setup({ evictionHard: { 'memory.available': '1Gi' } }, [pod('a')]);
    s.provider.failNext(new Error('cadvisor down'));
    expect(await s.manager.synchronize()).toEqual([]);
    expect(s.logger.records.some((r) => r.msg === 'Eviction manager: failed to get summary stats')).toBe(true);
  });
});
