import { statfs } from 'node:fs/promises';
import { promises as fsp, writeFileSync } from 'node:fs';
import { newPod } from '@kubelet-ts/api/testing';
import type { Pod } from '@kubelet-ts/api';
import { nodeResourceList } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createContainerManager } from './container-manager.js';
import { POD_CGROUP_RECHECK_MS } from './pod-container-manager.js';
import type { ContainerManagerOptions } from './container-manager.js';
import { computeNodeAllocatable, countCpuList, evictionMemoryReservation, readMachineCapacity } from './node-allocatable.js';
import { createFakeCgroupTree } from './testing/fake-cgroup-tree.js';
import type { FakeCgroupTree, FakeTreeMode } from './testing/fake-cgroup-tree.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
let tree: FakeCgroupTree;
afterEach(async () => {
  await tree?.cleanup();
});

async function setup(mode: FakeTreeMode, options: Partial<ContainerManagerOptions> = {}) {
  tree = await createFakeCgroupTree({ mode, cpus: 4, memoryBytes: 8 * GiB });
  const killed: number[] = [];
  const logger = new RecordingLogger();
  const cm = createContainerManager({
    fsRoot: tree.fsRoot,
    fs: tree.fs,
    cgroupRoot: '/kubelet-ts-unit',
    kill: (pid) => killed.push(pid),
    logger,
    ...options,
  });
  return { cm, killed, logger };
}

const burstable = (uid: string, cpu: string, memory?: string): Pod =>
  newPod({
    name: uid,
    uid,
    containers: [
      { name: 'app', resources: { requests: { cpu, ...(memory ? { memory } : {}) }, limits: { cpu: '1', ...(memory ? { memory } : {}) } } },
    ],
  });
const guaranteed = (uid: string): Pod =>
  newPod({ name: uid, uid, containers: [{ name: 'app', resources: { limits: { cpu: '500m', memory: '128Mi' } } }] });
const bestEffort = (uid: string): Pod => newPod({ name: uid, uid });

describe.each(['v1', 'v2'] as const)('container manager on cgroup %s', (mode) => {
  const cpuFile = mode === 'v1' ? 'cpu.shares' : 'cpu.weight';
  const memFile = mode === 'v1' ? 'memory.limit_in_bytes' : 'memory.max';
  const ctl = (c: string) => (mode === 'v1' ? c : 'unified');

  it('creates kubepods with node allocatable and the Burstable and BestEffort tiers at start', async () => {
    const { cm } = await setup(mode, {
      kubeReserved: { cpu: '500m', memory: '1Gi' },
      systemReserved: { cpu: '500m', memory: '512Mi' },
      evictionHard: { 'memory.available': '100Mi' },
    });
    await cm.start();
    // enforced on kubepods: capacity − reserved (the eviction threshold is left to the eviction manager, as upstream).
    expect(await tree.read(ctl('memory'), '/kubelet-ts-unit/kubepods', memFile)).toBe(String(8 * GiB - 1536 * MiB));
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods', cpuFile)).toBe(
      mode === 'v1' ? '3072' : String(Math.ceil(10 ** ((Math.log2(3072) ** 2 + 125 * Math.log2(3072)) / 612 - 7 / 34))),
    );
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/besteffort', cpuFile)).toBe(mode === 'v1' ? '2' : '1');
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/burstable', cpuFile)).toBe(mode === 'v1' ? '2' : '1');
    expect(cm.getNodeAllocatable()?.allocatable).toEqual({ cpuMilli: 3000, memoryBytes: 8 * GiB - 1536 * MiB - 100 * MiB });
  });

  it('reports the cgroup version at start (upstream cgroupVersionCheck), and times its cgroup operations', async () => {
    const metrics = new RecordingMetrics();
    const { cm } = await setup(mode, { metrics });
    expect(metrics.value('kubelet_cgroup_version')).toBeUndefined();
    await cm.start();
    expect(metrics.value('kubelet_cgroup_version')).toBe(mode === 'v1' ? 1 : 2);
    expect(metrics.observations('kubelet_cgroup_manager_duration_seconds', { operation_type: 'create' }).length).toBeGreaterThanOrEqual(3);
  });

  it('puts Burstable pods under burstable, BestEffort under besteffort and Guaranteed directly under kubepods, with their resources', async () => {
    const { cm } = await setup(mode);
    await cm.start();
    const b = burstable('b-1', '250m', '64Mi');
    const g = guaranteed('g-1');
    const e = bestEffort('e-1');
    expect(cm.getPodCgroupParent(b)).toBe('/kubelet-ts-unit/kubepods/burstable/podb-1');
    expect(cm.getPodCgroupParent(g)).toBe('/kubelet-ts-unit/kubepods/podg-1');
    expect(cm.getPodCgroupParent(e)).toBe('/kubelet-ts-unit/kubepods/besteffort/pode-1');
    for (const pod of [b, g, e]) await cm.podCgroups.ensureExists(pod);
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/burstable/podb-1', cpuFile)).toBe(mode === 'v1' ? '256' : '35');
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/burstable/podb-1', mode === 'v1' ? 'cpu.cfs_quota_us' : 'cpu.max')).toBe(
      mode === 'v1' ? '100000' : '100000 100000',
    );
    expect(await tree.read(ctl('memory'), '/kubelet-ts-unit/kubepods/burstable/podb-1', memFile)).toBe(String(64 * MiB));
    expect(await tree.read(ctl('memory'), '/kubelet-ts-unit/kubepods/podg-1', memFile)).toBe(String(128 * MiB));
    expect(await tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/besteffort/pode-1', cpuFile)).toBe(mode === 'v1' ? '2' : '1');
    expect((await cm.podCgroups.listPodUIDs()).sort()).toEqual(['b-1', 'e-1', 'g-1']);
  });

  it('gives Burstable the summed cpu requests of its pods as shares, updated as pods come and go', async () => {
    const { cm } = await setup(mode);
    await cm.start();
    await cm.podCgroups.ensureExists(burstable('b-1', '250m'));
    await cm.podCgroups.ensureExists(burstable('b-2', '750m'));
    await cm.podCgroups.ensureExists(guaranteed('g-1'));
    const shares = async () => tree.read(ctl('cpu'), '/kubelet-ts-unit/kubepods/burstable', cpuFile);
    expect(await shares()).toBe(mode === 'v1' ? '1024' : '100');
    await cm.podCgroups.destroy('b-2');
    expect(await shares()).toBe(mode === 'v1' ? '256' : '35');
    await cm.podCgroups.update([]);
    expect(await shares()).toBe(mode === 'v1' ? '2' : '1');
  });

  it('applies QoS updates one at a time, so an older pod list never lands after a newer one', async () => {
    tree = await createFakeCgroupTree({ mode, cpus: 4, memoryBytes: 8 * GiB });
    const tierFile = /\/kubepods\/(burstable|besteffort)\/cpu\.(shares|weight)$/;
    // After start the tiers' share writes stay in memory, so an update runs without real I/O, and the
    // first write to Burstable is held: a slow older update.
    let intercept = false;
    let burstableShares: string | undefined;
    let held: Promise<void> | undefined;
    let release: (() => void) | undefined;
    const cm = createContainerManager({
      fsRoot: tree.fsRoot,
      cgroupRoot: '/kubelet-ts-unit',
      fs: {
        ...tree.fs,
        async writeFile(file, data) {
          const tier = intercept ? tierFile.exec(file)?.[1] : undefined;
          if (tier === undefined) return tree.fs.writeFile(file, data);
          if (tier !== 'burstable') return;
          if (held === undefined) {
            held = new Promise<void>((resolve) => (release = resolve));
            await held;
          }
          burstableShares = data;
        },
      },
    });
    await cm.start();
    intercept = true;
    const older = cm.updateQOSCgroups([burstable('b-1', '250m')]);
    const newer = cm.updateQOSCgroups([burstable('b-1', '250m'), burstable('b-2', '750m')]);
    for (let i = 0; i < 20 && held === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(held).toBeDefined();
    // Unserialized, the newer update would finish here, before the older one is released.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    release?.();
    await Promise.all([older, newer]);
    expect(burstableShares).toBe(mode === 'v1' ? '1024' : '100');
  });

  it('kills the processes left in a pod cgroup (SIGKILL, as upstream) and removes it', async () => {
    const killed: Array<[number, string]> = [];
    let procs = '';
    const { cm } = await setup(mode, {
      // The fake "kernel": a killed process leaves the cgroup.
      kill: (pid, signal) => {
        killed.push([pid, signal]);
        writeFileSync(procs, '');
      },
    });
    await cm.start();
    await cm.podCgroups.ensureExists(burstable('b-1', '100m'));
    procs = tree.path(ctl('pids'), '/kubelet-ts-unit/kubepods/burstable/podb-1', 'cgroup.procs');
    await fsp.writeFile(procs, '4242\n');
    await cm.podCgroups.destroy('b-1');
    expect(killed).toEqual([[4242, 'SIGKILL']]);
    expect(await tree.exists(ctl('cpu'), '/kubelet-ts-unit/kubepods/burstable/podb-1')).toBe(false);
    expect(await cm.podCgroups.listPodUIDs()).toEqual([]);
  });

  it('a cgroupRoot that cannot be created gives a clear CGROUP_ROOT error, and every pod sync fails with it', async () => {
    const { cm } = await setup(mode, { cgroupRoot: '/kubelet-ts-unit/cgroup.procs/pods' });
    const err = await cm.start().catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'CGROUP_ROOT',
      message: 'cannot create the pod cgroup hierarchy under cgroupRoot "/kubelet-ts-unit/cgroup.procs/pods"',
    });
    expect(errorMessage(err)).toMatch(
      /failed to create cgroup \/kubelet-ts-unit\/cgroup.procs\/pods in \/sys\/fs\/cgroup.*: ENOTDIR: .*cgroup.procs exists and is not a directory/,
    );
    expect(cm.startError()?.code).toBe('CGROUP_ROOT');
    const podErr = await cm.podCgroups.ensureExists(bestEffort('e-1')).catch((e: unknown) => e);
    expect(podErr).toMatchObject({ code: 'CGROUP_ROOT' });
    expect(errorMessage(podErr)).toMatch(/^pod cgroup not created: cannot create the pod cgroup hierarchy under cgroupRoot/);
    expect(await cm.podCgroups.listPodUIDs()).toEqual([]);
  });
});

describe('container manager options', () => {
  it('without cgroupsPerQOS pods get no cgroup of their own and nothing is created', async () => {
    const { cm } = await setup('v1', { cgroupsPerQOS: false });
    await cm.start();
    expect(cm.getPodCgroupParent(bestEffort('e-1'))).toBeUndefined();
    await cm.podCgroups.ensureExists(bestEffort('e-1'));
    expect(await tree.exists('cpu', '/kubelet-ts-unit/kubepods')).toBe(false);
  });

  it('without `pods` in enforceNodeAllocatable kubepods gets the capacity', async () => {
    const { cm } = await setup('v1', { enforceNodeAllocatable: [], kubeReserved: { memory: '1Gi' } });
    await cm.start();
    expect(await tree.read('memory', '/kubelet-ts-unit/kubepods', 'memory.limit_in_bytes')).toBe(String(8 * GiB));
    expect(await tree.read('cpu', '/kubelet-ts-unit/kubepods', 'cpu.shares')).toBe('4096');
  });

  it('applies podPidsLimit to pod cgroups and reads per-pod and per-container usage', async () => {
    const { cm } = await setup('v1', { podPidsLimit: 64 });
    await cm.start();
    const pod = bestEffort('e-1');
    await cm.podCgroups.ensureExists(pod);
    expect(await tree.read('pids', '/kubelet-ts-unit/kubepods/besteffort/pode-1', 'pids.max')).toBe('64');
    await tree.fs.mkdir(tree.path('memory', '/kubelet-ts-unit/kubepods/besteffort/pode-1/abc').replace(/\/$/, ''));
    await tree.fs.mkdir(tree.path('cpuacct', '/kubelet-ts-unit/kubepods/besteffort/pode-1/abc').replace(/\/$/, ''));
    await tree.write('memory', '/kubelet-ts-unit/kubepods/besteffort/pode-1/abc', 'memory.usage_in_bytes', '5000');
    await tree.write('cpuacct', '/kubelet-ts-unit/kubepods/besteffort/pode-1/abc', 'cpuacct.usage', '77');
    expect(await cm.podContainerManager.containerStats(pod, 'abc')).toEqual({
      cpuUsageNanoseconds: 77,
      memoryUsageBytes: 5000,
      memoryWorkingSetBytes: 5000,
    });
    expect(await cm.podContainerManager.podStats(pod)).toMatchObject({ memoryUsageBytes: 0 });
  });

  it("writes a pod cgroup's settings again only when the pod's resources changed", async () => {
    const { cm } = await setup('v1');
    await cm.start();
    await cm.podCgroups.ensureExists(burstable('b-1', '250m'));
    const dir = '/kubelet-ts-unit/kubepods/burstable/podb-1';
    expect(await tree.read('cpu', dir, 'cpu.shares')).toBe('256');
    await tree.write('cpu', dir, 'cpu.shares', '2');
    await cm.podCgroups.ensureExists(burstable('b-1', '250m'));
    expect(await tree.read('cpu', dir, 'cpu.shares')).toBe('2');
    await cm.podCgroups.ensureExists(burstable('b-1', '500m'));
    expect(await tree.read('cpu', dir, 'cpu.shares')).toBe('512');
  });

  it('does not look for a pod cgroup it saw with the same settings within 10 s, and recreates one removed behind its back after that', async () => {
    const clock = new FakeClock();
    tree = await createFakeCgroupTree({ mode: 'v1', cpus: 4, memoryBytes: 8 * GiB });
    let lookups = 0;
    const cm = createContainerManager({
      fsRoot: tree.fsRoot,
      cgroupRoot: '/kubelet-ts-unit',
      clock,
      fs: { ...tree.fs, isDir: (dir) => (lookups++, tree.fs.isDir(dir)) },
    });
    await cm.start();
    const pod = burstable('b-1', '250m');
    const dir = '/kubelet-ts-unit/kubepods/burstable/podb-1';
    await cm.podCgroups.ensureExists(pod);
    lookups = 0;
    await cm.podCgroups.ensureExists(pod);
    await clock.advance(POD_CGROUP_RECHECK_MS - 1);
    await cm.podCgroups.ensureExists(pod);
    expect(lookups).toBe(0);
    // Changed resources are written at once.
    await cm.podCgroups.ensureExists(burstable('b-1', '500m'));
    expect(await tree.read('cpu', dir, 'cpu.shares')).toBe('512');
    // Removed from one hierarchy behind the kubelet's back: found and made again once the window passed.
    await tree.fs.rmdir(tree.path('memory', dir).replace(/\/$/, ''));
    await clock.advance(POD_CGROUP_RECHECK_MS);
    await cm.podCgroups.ensureExists(burstable('b-1', '500m'));
    expect(await tree.exists('memory', dir)).toBe(true);
    expect(await tree.read('memory', dir, 'memory.limit_in_bytes')).not.toBe('');
  });

  it('invalid reserved quantities are a clear INVALID_CONFIG error', async () => {
    const { cm } = await setup('v1', { kubeReserved: { memory: 'a lot' } });
    await expect(cm.start()).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
      message: 'kubeReserved.memory: "a lot" is not a valid quantity',
    });
  });

  it('the systemd driver renders slice names for the runtime and fails to start without D-Bus', async () => {
    const { cm } = await setup('v1', { cgroupDriver: 'systemd', cgroupRoot: '/' });
    expect(cm.getPodCgroupParent(burstable('1-2', '100m'))).toBe(
      '/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice',
    );
    await expect(cm.start()).rejects.toMatchObject({ code: 'SYSTEMD_UNAVAILABLE' });
  });
});

describe('node allocatable', () => {
  it('subtracts kube and system reserved and the memory.available hard threshold (percentages of capacity)', () => {
    const result = computeNodeAllocatable({
      capacity: { cpuMilli: 2000, memoryBytes: 4 * GiB, pids: 1000 },
      kubeReserved: { cpu: '100m', memory: '256Mi', pid: '100' },
      systemReserved: { cpu: '200m' },
      evictionHard: { 'memory.available': '10%', 'nodefs.available': '10%' },
    });
    expect(result.enforced).toEqual({ cpuMilli: 1700, memoryBytes: 4 * GiB - 256 * MiB, pids: 900 });
    // 10 % as upstream computes it: a float32 fraction (0.100000001), the product truncated.
    const tenPercentOf4Gi = Math.trunc(4 * GiB * Math.fround(0.1));
    expect(result.allocatable).toEqual({ cpuMilli: 1700, memoryBytes: 4 * GiB - 256 * MiB - tenPercentOf4Gi, pids: 900 });
    expect(evictionMemoryReservation({ 'memory.available': '100Mi' }, GiB)).toBe(100 * MiB);
    expect(computeNodeAllocatable({ capacity: { cpuMilli: 100, memoryBytes: 10 }, kubeReserved: { cpu: '1' } }).allocatable.cpuMilli).toBe(
      0,
    );
    expect(nodeResourceList(result.allocatable)).toEqual({
      cpu: '1700m',
      memory: String(4 * GiB - 256 * MiB - tenPercentOf4Gi),
    });
  });

  it('advertises ephemeral storage less its reservations and the nodefs.available hard threshold, never enforcing it', () => {
    const result = computeNodeAllocatable({
      capacity: { cpuMilli: 2000, memoryBytes: 4 * GiB, ephemeralStorageBytes: 100 * GiB },
      kubeReserved: { 'ephemeral-storage': '1Gi' },
      systemReserved: { 'ephemeral-storage': '2Gi' },
      evictionHard: { 'nodefs.available': '10%' },
    });
    expect(result.reserved.ephemeralStorageBytes).toBe(3 * GiB);
    expect(result.evictionEphemeralStorageBytes).toBe(10737418400); // 100Gi × float32(0.1), truncated
    expect(result.allocatable.ephemeralStorageBytes).toBe(100 * GiB - 3 * GiB - 10737418400);
    expect(result.enforced.ephemeralStorageBytes).toBeUndefined();
    // The upstream kubelet's allocatable on a 270553174016-byte root filesystem with nodefs.available 1 %.
    const onePercent = computeNodeAllocatable({
      capacity: { cpuMilli: 2000, memoryBytes: GiB, ephemeralStorageBytes: 270553174016 },
      evictionHard: { 'nodefs.available': '1%' },
    });
    expect(nodeResourceList(onePercent.allocatable)['ephemeral-storage']).toBe('267847642337');
    expect(() => computeNodeAllocatable({ capacity: result.capacity, evictionHard: { 'nodefs.available': '120%' } })).toThrow(
      /evictionHard.nodefs.available: invalid percentage/,
    );
  });

  it('reads cpus and MemTotal from the machine, and the ephemeral storage from the filesystem of a path', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1', cpus: 3, memoryBytes: 2 * GiB });
    expect(await readMachineCapacity(tree.fsRoot)).toEqual({ cpuMilli: 3000, memoryBytes: 2 * GiB, pids: 4194304 });
    const fs = await statfs(tree.fsRoot);
    expect((await readMachineCapacity(tree.fsRoot, { ephemeralStoragePath: tree.fsRoot })).ephemeralStorageBytes).toBe(
      fs.blocks * fs.bsize,
    );
    const fresh = await readMachineCapacity(tree.fsRoot, { ephemeralStoragePath: `${tree.fsRoot}/not/made/yet` });
    expect(fresh.ephemeralStorageBytes).toBe(fs.blocks * fs.bsize);
    await expect(readMachineCapacity(tree.fsRoot, { ephemeralStoragePath: '\0bad' })).rejects.toThrow(/cannot statfs/);
    expect(countCpuList('0-3,6,8-9\n')).toBe(7);
  });
});
