import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock } from '@kubelet-ts/common/testing';
import { createContainerManager } from './container-manager.js';
import { FakeCgroupManager, FakePodCgroups } from './testing/index.js';

const machineCapacity = async () => ({ cpuMilli: 2000, memoryBytes: 4 * 1024 ** 3 });
const burstable = newPod({ name: 'b', uid: 'b', containers: [{ name: 'c', resources: { requests: { cpu: '500m' } } }] });

async function settle(clock: FakeClock, ms: number): Promise<void> {
  await clock.advance(ms);
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

describe('container manager loop (with FakeCgroupManager)', () => {
  it('re-applies the QoS tiers every interval, as upstream every minute', async () => {
    const clock = new FakeClock();
    const cgroups = new FakeCgroupManager();
    const cm = createContainerManager({ cgroupManager: cgroups, machineCapacity, clock, qosUpdateIntervalMs: 60_000 });
    await cm.start();
    await cm.podCgroups.ensureExists(burstable);
    expect(cgroups.cgroups.get('/kubepods/burstable')?.cpuShares).toBe(512);
    expect(cgroups.cgroups.get('/kubepods')).toEqual({ cpuShares: 2048, memoryLimitBytes: 4 * 1024 ** 3 });
    expect(cgroups.cgroups.get('/kubepods/burstable/podb')).toMatchObject({ cpuShares: 512 });

    const controller = new AbortController();
    const running = cm.run(controller.signal);
    cgroups.cgroups.set('/kubepods/burstable', { cpuShares: 1024 }); // someone changed it
    await settle(clock, 60_000);
    expect(cgroups.cgroups.get('/kubepods/burstable')?.cpuShares).toBe(512);
    controller.abort();
    await running;
    expect(clock.pendingTimers).toBe(0);
  });

  it('retries a failed start on the next tick and on the next pod sync', async () => {
    const clock = new FakeClock();
    const cgroups = new FakeCgroupManager();
    cgroups.failNext('create', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }));
    const cm = createContainerManager({ cgroupManager: cgroups, machineCapacity, clock, cgroupRoot: '/pods', qosUpdateIntervalMs: 1_000 });
    await expect(cm.start()).rejects.toMatchObject({ code: 'CGROUP_ROOT' });
    expect(cgroups.cgroups.has('/pods/kubepods')).toBe(false);
    const controller = new AbortController();
    const running = cm.run(controller.signal);
    await settle(clock, 1_000);
    expect(cm.startError()).toBeUndefined();
    expect(cgroups.cgroups.has('/pods/kubepods/besteffort')).toBe(true);
    controller.abort();
    await running;
  });
});

describe('FakePodCgroups', () => {
  it('records calls, keeps the existing UIDs, and injects errors', async () => {
    const fake = new FakePodCgroups();
    await fake.ensureExists(burstable);
    expect(await fake.listPodUIDs()).toEqual(['b']);
    fake.failDestroy = new Error('busy');
    await expect(fake.destroy('b')).rejects.toThrow('busy');
    expect(fake.callsOf('destroy')).toEqual([{ method: 'destroy', uid: 'b' }]);
  });
});
