import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createCgroupManager } from './cgroup-manager.js';
import { cgroupLayout, mountPath, parseCgroupMounts } from './internal/mountinfo.js';
import type { SystemdClient, SystemdProperty } from './systemd.js';
import { createFakeCgroupTree } from './testing/fake-cgroup-tree.js';
import type { FakeCgroupTree } from './testing/fake-cgroup-tree.js';

const POD = ['kubelet-ts', 'kubepods', 'burstable', 'pod-1'];
const V1_HIERARCHIES = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'hugetlb', 'blkio', 'devices', 'freezer', 'systemd'];

let tree: FakeCgroupTree;
/** Lets the real (fake-tree) I/O run and advances the fake clock whenever the code under test waits on it, until `work` settles. */
async function drive<T>(clock: FakeClock, work: Promise<T>, stepMs: number): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    if (clock.pendingTimers > 0) await clock.advance(stepMs);
    else await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return work;
}

afterEach(async () => {
  await tree?.cleanup();
});

describe('mountinfo', () => {
  it('finds every v1 hierarchy of a hybrid host, the unified mount, and decides v1', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const layout = cgroupLayout(parseCgroupMounts(tree.mountinfo));
    expect(layout.mode).toBe('v1');
    expect(layout.v1.get('cpu')?.mountPoint).toBe('/sys/fs/cgroup/cpu');
    expect(layout.v1.get('cpuacct')?.mountPoint).toBe('/sys/fs/cgroup/cpuacct');
    expect(layout.v1.get('name=systemd')?.mountPoint).toBe('/sys/fs/cgroup/systemd');
    expect(layout.unified?.mountPoint).toBe('/sys/fs/cgroup/unified');
  });
  it('decides v2 when only cgroup2 is mounted, and reads co-mounted and escaped v1 mounts', () => {
    expect(cgroupLayout(parseCgroupMounts('30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n')).mode).toBe('v2');
    const mounts = parseCgroupMounts('31 30 0:27 /kube /sys/fs/my\\040cg rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n');
    expect(mounts[0]).toEqual({ version: 1, mountPoint: '/sys/fs/my cg', root: '/kube', controllers: ['cpu', 'cpuacct'] });
    expect(mountPath(mounts[0]!, '/kube/a/b')).toBe('/sys/fs/my cg/a/b');
  });
  it('fails NOT_MOUNTED without any cgroup mount', () => {
    expect(() => cgroupLayout([])).toThrow(expect.objectContaining({ code: 'NOT_MOUNTED' }));
  });
});

describe('cgroupfs driver on cgroup v1', () => {
  it('creates the cgroup in every hierarchy with shares, quota, period, memory and pids, copying cpuset from the parent', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1', cpus: 2 });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    expect(await cm.mode()).toBe('v1');
    await cm.create(POD, { cpuShares: 256, cpuQuotaUs: 50_000, cpuPeriodUs: 100_000, memoryLimitBytes: 64 << 20, pidsLimit: 100 });
    for (const h of V1_HIERARCHIES) expect(await tree.exists(h, '/kubelet-ts/kubepods/burstable/pod-1')).toBe(true);
    expect(await tree.exists('unified', '/kubelet-ts/kubepods/burstable/pod-1')).toBe(false);
    expect(await tree.read('cpu', '/kubelet-ts/kubepods/burstable/pod-1', 'cpu.shares')).toBe('256');
    expect(await tree.read('cpu', '/kubelet-ts/kubepods/burstable/pod-1', 'cpu.cfs_quota_us')).toBe('50000');
    expect(await tree.read('cpu', '/kubelet-ts/kubepods/burstable/pod-1', 'cpu.cfs_period_us')).toBe('100000');
    expect(await tree.read('memory', '/kubelet-ts/kubepods/burstable/pod-1', 'memory.limit_in_bytes')).toBe(String(64 << 20));
    expect(await tree.read('pids', '/kubelet-ts/kubepods/burstable/pod-1', 'pids.max')).toBe('100');
    expect(await tree.read('cpuset', '/kubelet-ts/kubepods/burstable/pod-1', 'cpuset.cpus')).toBe('0-1');
    expect(await tree.read('cpuset', '/kubelet-ts/kubepods', 'cpuset.mems')).toBe('0');
    expect(await cm.exists(POD)).toBe(true);
    expect(await cm.path(POD, 'memory')).toBe(tree.path('memory', '/kubelet-ts/kubepods/burstable/pod-1').replace(/\/$/, ''));
    expect(cm.name(POD)).toBe('/kubelet-ts/kubepods/burstable/pod-1');
  });

  it('makes only the leaf when the parents exist (one mkdir per hierarchy), and every missing level otherwise', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1', cpus: 2 });
    const mkdirs: string[] = [];
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: { ...tree.fs, mkdir: (dir) => (mkdirs.push(dir), tree.fs.mkdir(dir)) } });
    await cm.create(POD);
    const created = mkdirs.length;
    expect(created).toBeGreaterThan(V1_HIERARCHIES.length);
    mkdirs.length = 0;
    const sibling = ['kubelet-ts', 'kubepods', 'burstable', 'pod-2'];
    await cm.create(sibling, { cpuShares: 2 });
    expect(mkdirs.length).toBe(V1_HIERARCHIES.length);
    expect(mkdirs.every((d) => d.endsWith('/kubelet-ts/kubepods/burstable/pod-2'))).toBe(true);
    // A new cpuset leaf still inherits the parent's cpus and mems.
    expect(await tree.read('cpuset', '/kubelet-ts/kubepods/burstable/pod-2', 'cpuset.cpus')).toBe('0-1');
    expect(await tree.read('cpuset', '/kubelet-ts/kubepods/burstable/pod-2', 'cpuset.mems')).toBe('0');
    expect(await cm.exists(sibling)).toBe(true);
  });

  it('is not "existing" when a required hierarchy lacks it', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    await cm.create(POD);
    tree.failRmdir(0);
    await tree.fs.rmdir(tree.path('memory', '/kubelet-ts/kubepods/burstable/pod-1').replace(/\/$/, ''));
    expect(await cm.exists(POD)).toBe(false);
  });

  it('destroys the cgroup and its container cgroups in every hierarchy, including the hybrid unified one', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    await cm.create(POD);
    await cm.create([...POD, 'container-1']);
    // runc also makes the container's directory in the unified hierarchy of a hybrid host.
    for (const p of [
      '/kubelet-ts',
      '/kubelet-ts/kubepods',
      '/kubelet-ts/kubepods/burstable',
      '/kubelet-ts/kubepods/burstable/pod-1',
      '/kubelet-ts/kubepods/burstable/pod-1/container-1',
    ]) {
      await tree.fs.mkdir(tree.path('unified', p).replace(/\/$/, ''));
    }
    expect(await cm.children(['kubelet-ts', 'kubepods', 'burstable'])).toEqual(['pod-1']);
    await cm.destroy(POD);
    for (const h of [...V1_HIERARCHIES, 'unified']) expect(await tree.exists(h, '/kubelet-ts/kubepods/burstable/pod-1')).toBe(false);
    expect(await tree.exists('cpu', '/kubelet-ts/kubepods/burstable')).toBe(true);
    await cm.destroy(POD); // missing is fine
  });

  it('retries a busy rmdir after a delay, then gives up with BUSY', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const clock = new FakeClock();
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs, clock, destroyRetries: 2, destroyRetryDelayMs: 100 });
    await cm.create(POD);
    tree.failRmdir(1);
    const before = clock.now();
    await drive(clock, cm.destroy(POD), 100);
    expect(clock.now() - before).toBe(100);
    expect(await tree.exists('cpu', '/kubelet-ts/kubepods/burstable/pod-1')).toBe(false);

    await cm.create(POD);
    tree.failRmdir(1000);
    const failing = drive(
      clock,
      cm.destroy(POD).catch((e: unknown) => e),
      100,
    );
    expect(await failing).toMatchObject({
      code: 'BUSY',
      message: expect.stringContaining('failed to remove cgroup /kubelet-ts/kubepods/burstable/pod-1'),
    });
    tree.failRmdir(0);
  });

  it('times each create, update and destroy in kubelet_cgroup_manager_duration_seconds, failed ones too', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const clock = new FakeClock();
    const metrics = new RecordingMetrics();
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs, clock, metrics, destroyRetries: 2, destroyRetryDelayMs: 100 });
    await cm.create(POD, { cpuShares: 256 });
    await cm.update(POD, { cpuShares: 512 });
    tree.failRmdir(1);
    await drive(clock, cm.destroy(POD), 100);
    await cm.create(POD);
    tree.failRmdir(1000);
    await drive(
      clock,
      cm.destroy(POD).catch(() => undefined),
      100,
    );
    tree.failRmdir(0);
    // The create's own writes are not an update; the busy destroys took their retry delays.
    expect(metrics.observations('kubelet_cgroup_manager_duration_seconds', { operation_type: 'create' })).toEqual([0, 0]);
    expect(metrics.observations('kubelet_cgroup_manager_duration_seconds', { operation_type: 'update' })).toEqual([0]);
    expect(metrics.observations('kubelet_cgroup_manager_duration_seconds', { operation_type: 'destroy' })).toEqual([0.1, 0.2]);
    expect(metrics.buckets('kubelet_cgroup_manager_duration_seconds')).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
  });

  it('lists the pids of the cgroup and its children, and reads usage and the working set', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    await cm.create(POD);
    await cm.create([...POD, 'c1']);
    await tree.write('memory', '/kubelet-ts/kubepods/burstable/pod-1', 'cgroup.procs', '11\n12\n');
    await tree.write('pids', '/kubelet-ts/kubepods/burstable/pod-1/c1', 'cgroup.procs', '12\n13\n');
    expect(await cm.pids(POD)).toEqual([11, 12, 13]);
    await tree.write('cpuacct', '/kubelet-ts/kubepods/burstable/pod-1', 'cpuacct.usage', '123456789');
    await tree.write('memory', '/kubelet-ts/kubepods/burstable/pod-1', 'memory.usage_in_bytes', '1000000');
    await tree.write(
      'memory',
      '/kubelet-ts/kubepods/burstable/pod-1',
      'memory.stat',
      'cache 5\ninactive_file 1\ntotal_inactive_file 250000\n',
    );
    expect(await cm.stats(POD)).toEqual({ cpuUsageNanoseconds: 123456789, memoryUsageBytes: 1_000_000, memoryWorkingSetBytes: 750_000 });
  });

  it('reports a write that fails as an IO CgroupError naming the file', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    await expect(cm.update(['nope'], { cpuShares: 2 })).rejects.toMatchObject({
      code: 'IO',
      message: expect.stringContaining('/sys/fs/cgroup/cpu/nope/cpu.shares'),
    });
  });
});

describe('cgroupfs driver on cgroup v2', () => {
  it('creates the cgroup, enables controllers in every parent, and writes cpu.weight, cpu.max, memory.max, pids.max', async () => {
    tree = await createFakeCgroupTree({ mode: 'v2' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    expect(await cm.mode()).toBe('v2');
    await cm.create(POD, { cpuShares: 1024, cpuQuotaUs: 50_000, cpuPeriodUs: 100_000, memoryLimitBytes: 64 << 20, pidsLimit: 100 });
    const dir = '/kubelet-ts/kubepods/burstable/pod-1';
    expect(await tree.read('unified', dir, 'cpu.weight')).toBe('100');
    expect(await tree.read('unified', dir, 'cpu.max')).toBe('50000 100000');
    expect(await tree.read('unified', dir, 'memory.max')).toBe(String(64 << 20));
    expect(await tree.read('unified', dir, 'pids.max')).toBe('100');
    for (const parent of ['/', '/kubelet-ts', '/kubelet-ts/kubepods', '/kubelet-ts/kubepods/burstable']) {
      expect((await tree.read('unified', parent, 'cgroup.subtree_control')).split(' ').sort()).toEqual([
        'cpu',
        'cpuset',
        'hugetlb',
        'io',
        'memory',
        'pids',
      ]);
    }
    await cm.update(POD, { cpuQuotaUs: -1, cpuPeriodUs: 100_000, memoryLimitBytes: -1, pidsLimit: -1 });
    expect(await tree.read('unified', dir, 'cpu.max')).toBe('max 100000');
    expect(await tree.read('unified', dir, 'memory.max')).toBe('max');
    expect(await tree.read('unified', dir, 'pids.max')).toBe('max');
    expect(await cm.exists(POD)).toBe(true);
  });

  it('reads usage_usec and memory.current minus inactive_file, and destroys the tree', async () => {
    tree = await createFakeCgroupTree({ mode: 'v2' });
    const cm = createCgroupManager({ fsRoot: tree.fsRoot, fs: tree.fs });
    await cm.create(POD);
    await cm.create([...POD, 'c1']);
    const dir = '/kubelet-ts/kubepods/burstable/pod-1';
    await tree.write('unified', dir, 'cpu.stat', 'usage_usec 2500\nuser_usec 2000\n');
    await tree.write('unified', dir, 'memory.current', '4096');
    await tree.write('unified', dir, 'memory.stat', 'anon 1\ninactive_file 1024\n');
    expect(await cm.stats(POD)).toEqual({ cpuUsageNanoseconds: 2_500_000, memoryUsageBytes: 4096, memoryWorkingSetBytes: 3072 });
    await cm.destroy(POD);
    expect(await tree.exists('unified', dir)).toBe(false);
  });
});

describe('systemd driver', () => {
  class RecordingSystemd implements SystemdClient {
    calls: Array<{ op: string; unit: string; properties?: SystemdProperty[] }> = [];
    async startTransientUnit(unit: string, properties: SystemdProperty[]) {
      this.calls.push({ op: 'start', unit, properties });
    }
    async setUnitProperties(unit: string, properties: SystemdProperty[]) {
      this.calls.push({ op: 'set', unit, properties });
    }
    async stopUnit(unit: string) {
      this.calls.push({ op: 'stop', unit });
    }
  }

  it('creates a transient slice unit with translated properties and reads cgroups at the systemd path', async () => {
    tree = await createFakeCgroupTree({ mode: 'v2' });
    const systemd = new RecordingSystemd();
    const cm = createCgroupManager({ driver: 'systemd', fsRoot: tree.fsRoot, fs: tree.fs, systemd });
    const name = ['kubepods', 'burstable', 'pod1-2'];
    expect(cm.name(name)).toBe('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice');
    await cm.create(name, { cpuShares: 1024, memoryLimitBytes: 1000 });
    expect(systemd.calls[0]).toMatchObject({ op: 'start', unit: 'kubepods-burstable-pod1_2.slice' });
    expect(systemd.calls[0]?.properties).toEqual(
      expect.arrayContaining([
        { name: 'Wants', value: 'kubepods-burstable.slice' },
        { name: 'Delegate', value: true },
        { name: 'CPUWeight', value: 100 },
        { name: 'MemoryMax', value: 1000 },
      ]),
    );
    await cm.destroy(name);
    expect(systemd.calls[1]).toEqual({ op: 'stop', unit: 'kubepods-burstable-pod1_2.slice' });
    expect(await cm.path(name, 'cpu')).toContain('/sys/fs/cgroup/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1_2.slice');
  });

  it('fails with SYSTEMD_UNAVAILABLE and says why when D-Bus is not reachable', async () => {
    tree = await createFakeCgroupTree({ mode: 'v1' });
    const cm = createCgroupManager({ driver: 'systemd', fsRoot: tree.fsRoot, fs: tree.fs });
    await expect(cm.create(['kubepods'])).rejects.toMatchObject({
      code: 'SYSTEMD_UNAVAILABLE',
      message: expect.stringMatching(/systemd is not reachable over D-Bus .*use cgroupDriver "cgroupfs"/),
    });
  });
});
