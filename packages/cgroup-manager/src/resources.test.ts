import { newPod } from '@kubelet-ts/api/testing';
import { cgroupName, parseCgroupfsName, parseSystemdName, renderCgroupName, toCgroupfs, toSystemd } from './cgroup-name.js';
import { CgroupError } from './errors.js';
import { cpuSharesToWeight, milliCPUToQuota, milliCPUToShares, podResourceAmounts, resourceConfigForPod } from './resources.js';
import { systemdProperties, systemdUnit, SYSTEMD_INFINITY } from './systemd.js';

const res = (requests: Record<string, string>, limits: Record<string, string> = {}) => ({ resources: { requests, limits } });

describe('cgroup names', () => {
  const pod = cgroupName(['kubepods', 'burstable'], 'pod1234-5678');
  it('renders the cgroupfs form', () => {
    expect(toCgroupfs(pod)).toBe('/kubepods/burstable/pod1234-5678');
    expect(toCgroupfs([])).toBe('/');
    expect(parseCgroupfsName('/a/b/')).toEqual(['a', 'b']);
  });
  it('renders the systemd form with nested slices and - escaped as _ (as upstream)', () => {
    expect(toSystemd(pod)).toBe('/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234_5678.slice');
    expect(toSystemd([])).toBe('/');
    expect(parseSystemdName(toSystemd(pod))).toEqual(['kubepods', 'burstable', 'pod1234-5678']);
    expect(renderCgroupName(pod, 'systemd')).toBe(toSystemd(pod));
    expect(systemdUnit(pod)).toEqual({ unit: 'kubepods-burstable-pod1234_5678.slice', slice: 'kubepods-burstable.slice' });
  });
  it('refuses a component with a slash', () => {
    expect(() => cgroupName([], 'a/b')).toThrow(CgroupError);
  });
});

describe('cpu conversions (upstream helpers_linux.go, runc)', () => {
  it('converts millicores to shares: × 1024 / 1000, min 2, max 262144', () => {
    expect(milliCPUToShares(0)).toBe(2);
    expect(milliCPUToShares(1)).toBe(2);
    expect(milliCPUToShares(100)).toBe(102);
    expect(milliCPUToShares(250)).toBe(256);
    expect(milliCPUToShares(1000)).toBe(1024);
    expect(milliCPUToShares(10_000_000)).toBe(262_144);
  });
  it('converts millicores to a CFS quota with a 1 ms minimum; 0 means no limit', () => {
    expect(milliCPUToQuota(0)).toBe(0);
    expect(milliCPUToQuota(5)).toBe(1000);
    expect(milliCPUToQuota(500)).toBe(50_000);
    expect(milliCPUToQuota(2000, 50_000)).toBe(100_000);
  });
  it('converts shares to cpu.weight with the current runc/crun formula', () => {
    expect(cpuSharesToWeight(0)).toBe(0);
    expect(cpuSharesToWeight(2)).toBe(1);
    expect(cpuSharesToWeight(1024)).toBe(100);
    expect(cpuSharesToWeight(262_144)).toBe(10_000);
    // Not the old linear formula (which gave 39 for 1024 and 4 for 102).
    expect(cpuSharesToWeight(102)).toBe(17);
    expect(cpuSharesToWeight(512)).toBe(59);
  });
});

describe('resourceConfigForPod (upstream ResourceConfigForPod)', () => {
  it('Burstable with requests and limits on every container: shares, quota and the memory limit sum', () => {
    const pod = newPod({
      containers: [
        { name: 'a', ...res({ cpu: '100m', memory: '32Mi' }, { cpu: '200m', memory: '64Mi' }) },
        { name: 'b', ...res({ cpu: '150m', memory: '16Mi' }, { cpu: '300m', memory: '32Mi' }) },
      ],
    });
    expect(resourceConfigForPod(pod, { podPidsLimit: 100 })).toEqual({
      cpuShares: 256,
      cpuQuotaUs: 50_000,
      cpuPeriodUs: 100_000,
      memoryLimitBytes: 96 * 1024 * 1024,
      pidsLimit: 100,
    });
  });
  it('Burstable without a memory limit on one container gets no pod memory limit and no quota without every cpu limit', () => {
    const pod = newPod({
      containers: [
        { name: 'a', ...res({ cpu: '100m' }, { memory: '64Mi' }) },
        { name: 'b', ...res({ cpu: '100m' }) },
      ],
    });
    expect(resourceConfigForPod(pod)).toEqual({ cpuShares: 204 });
  });
  it('counts the largest init container when it is more than the containers (plus sidecars started before it)', () => {
    const pod = newPod({
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', ...res({ cpu: '100m', memory: '10Mi' }, { cpu: '100m', memory: '10Mi' }) },
        { name: 'init', ...res({ cpu: '1', memory: '100Mi' }, { cpu: '1', memory: '100Mi' }) },
      ],
      containers: [{ name: 'app', ...res({ cpu: '200m', memory: '20Mi' }, { cpu: '200m', memory: '20Mi' }) }],
    });
    expect(podResourceAmounts(pod, 'limits')).toEqual({ cpuMilli: 1100, memoryBytes: 110 * 1024 * 1024 });
    const config = resourceConfigForPod(pod);
    expect(config).toMatchObject({ cpuShares: 1126, cpuQuotaUs: 110_000, memoryLimitBytes: 110 * 1024 * 1024 });
  });
  it('Guaranteed: quota and memory from the limits', () => {
    const pod = newPod({ containers: [{ name: 'a', ...res({}, { cpu: '500m', memory: '128Mi' }) }] });
    expect(resourceConfigForPod(pod)).toEqual({
      cpuShares: 512,
      cpuQuotaUs: 50_000,
      cpuPeriodUs: 100_000,
      memoryLimitBytes: 128 * 1024 * 1024,
    });
  });
  it('Guaranteed with cpuCFSQuota off: quota -1 (unlimited)', () => {
    const pod = newPod({ containers: [{ name: 'a', ...res({}, { cpu: '500m', memory: '128Mi' }) }] });
    expect(resourceConfigForPod(pod, { enforceCpuLimits: false }).cpuQuotaUs).toBe(-1);
  });
  it('BestEffort: the minimum 2 shares only', () => {
    expect(resourceConfigForPod(newPod())).toEqual({ cpuShares: 2 });
  });
  it('rejects a limit below its request with a clear CgroupError', () => {
    const pod = newPod({ defaults: false, containers: [{ name: 'a', ...res({ memory: '128Mi' }, { memory: '64Mi' }) }] });
    expect(() => resourceConfigForPod(pod)).toThrow(
      expect.objectContaining({
        code: 'INVALID_RESOURCES',
        message: expect.stringContaining('memory request 128Mi is above its limit 64Mi'),
      }),
    );
  });
  it('rejects a quantity that does not parse', () => {
    const pod = newPod({ defaults: false, containers: [{ name: 'a', ...res({ cpu: 'lots' }) }] });
    expect(() => resourceConfigForPod(pod)).toThrow(
      expect.objectContaining({ code: 'INVALID_RESOURCES', message: expect.stringContaining('"lots" is not a valid quantity') }),
    );
  });
});

describe('systemd property translation (runc systemd driver)', () => {
  const resources = { cpuShares: 1024, cpuQuotaUs: 25_000, cpuPeriodUs: 100_000, memoryLimitBytes: 64 * 1024 * 1024, pidsLimit: 100 };
  it('v1: CPUShares, CPUQuotaPerSecUSec, MemoryLimit, TasksMax', () => {
    expect(systemdProperties(resources, 'v1')).toEqual([
      { name: 'CPUShares', value: 1024 },
      { name: 'CPUQuotaPeriodUSec', value: 100_000 },
      { name: 'CPUQuotaPerSecUSec', value: 250_000 },
      { name: 'MemoryLimit', value: 64 * 1024 * 1024 },
      { name: 'TasksMax', value: 100 },
    ]);
  });
  it('v2: CPUWeight and MemoryMax; the quota rounds up to 10 ms; -1 is infinity', () => {
    const props = systemdProperties({ cpuShares: 2, cpuQuotaUs: 1_000, cpuPeriodUs: 100_000, memoryLimitBytes: -1, pidsLimit: -1 }, 'v2');
    expect(props).toEqual([
      { name: 'CPUWeight', value: 1 },
      { name: 'CPUQuotaPeriodUSec', value: 100_000 },
      { name: 'CPUQuotaPerSecUSec', value: 10_000 },
      { name: 'MemoryMax', value: SYSTEMD_INFINITY },
      { name: 'TasksMax', value: SYSTEMD_INFINITY },
    ]);
  });
});
