/**
 * The cgroup manager on this machine's real cgroup v1 hierarchies (hybrid): mountinfo detection,
 * the QoS hierarchy and a pod cgroup under a unique root below $KUBELET_TS_CGROUP_ROOT, and
 * removal of a pod cgroup that still holds a process (killed with SIGKILL, as upstream).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newPod } from '@kubelet-ts/api/testing';
import { createCgroupManager, createContainerManager } from '../../src/index.js';

const TEST_ROOT = process.env['KUBELET_TS_CGROUP_ROOT'] ?? '/kubelet-ts-test';
const ROOT = `${TEST_ROOT}/cgroup-manager-it-${process.pid}-${Date.now()}`;
const read = async (...parts: string[]): Promise<string> => (await fs.readFile(path.join('/sys/fs/cgroup', ...parts), 'utf8')).trim();
const isDir = async (...parts: string[]): Promise<boolean> =>
  (await fs.stat(path.join('/sys/fs/cgroup', ...parts)).catch(() => undefined))?.isDirectory() ?? false;

let child: ChildProcess | undefined;

afterAll(async () => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  const remove = async (dir: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => []))
      if (e.isDirectory()) await remove(path.join(dir, e.name));
    await fs.rmdir(dir).catch(() => undefined);
  };
  for (const h of await fs.readdir('/sys/fs/cgroup')) await remove(path.join('/sys/fs/cgroup', h, ROOT));
});

test('detects cgroup v1 from mountinfo on this machine', async () => {
  expect(await createCgroupManager().mode()).toBe('v1');
});

test('creates the QoS hierarchy and a Burstable pod cgroup, reads its usage, and removes it with the process left in it killed', async () => {
  const cm = createContainerManager({ cgroupRoot: ROOT, kubeReserved: { cpu: '100m' }, podPidsLimit: 50 });
  await cm.start();
  expect(await isDir('memory', ROOT, 'kubepods', 'besteffort')).toBe(true);
  expect(await read('cpu', ROOT, 'kubepods', 'besteffort', 'cpu.shares')).toBe('2');
  expect(await read('cpuset', ROOT, 'kubepods', 'burstable', 'cpuset.cpus')).toBe(await read('cpuset', TEST_ROOT, 'cpuset.cpus'));

  const pod = newPod({
    uid: `it-${process.pid}`,
    containers: [{ name: 'c', resources: { requests: { cpu: '300m', memory: '16Mi' }, limits: { cpu: '400m', memory: '32Mi' } } }],
  });
  await cm.podCgroups.ensureExists(pod);
  const dir = [ROOT, 'kubepods', 'burstable', `pod${pod.metadata.uid}`];
  expect(cm.getPodCgroupParent(pod)).toBe(`/${dir.join('/').replace(/^\/+/, '')}`);
  expect(await read('cpu', ...dir, 'cpu.shares')).toBe('307');
  expect(await read('cpu', ...dir, 'cpu.cfs_quota_us')).toBe('40000');
  expect(await read('memory', ...dir, 'memory.limit_in_bytes')).toBe(String(32 * 1024 * 1024));
  expect(await read('pids', ...dir, 'pids.max')).toBe('50');
  expect(await read('cpu', ROOT, 'kubepods', 'burstable', 'cpu.shares')).toBe('307');

  // A process in the pod cgroup (as a container's would be), in every hierarchy the kubelet manages.
  const sleeper = spawn('sleep', ['600'], { stdio: 'ignore' });
  child = sleeper;
  const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.once('exit', (_code, signal) => resolve(signal)));
  for (const h of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids'])
    await fs.writeFile(path.join('/sys/fs/cgroup', h, ...dir, 'cgroup.procs'), String(sleeper.pid));
  expect(await cm.cgroupManager.pids(cm.podContainerManager.getPodContainerName(pod).name)).toEqual([sleeper.pid]);
  // Usage as the kernel reports it (an idle sleep: the values stay put between the two reads).
  const stats = await cm.podContainerManager.podStats(pod);
  expect(stats.cpuUsageNanoseconds).toBe(Number(await read('cpuacct', ...dir, 'cpuacct.usage')));
  expect(stats.memoryUsageBytes).toBe(Number(await read('memory', ...dir, 'memory.usage_in_bytes')));
  expect(stats.memoryWorkingSetBytes).toBeLessThanOrEqual(stats.memoryUsageBytes);

  await cm.podCgroups.destroy(pod.metadata.uid);
  expect(await exited).toBe('SIGKILL');
  for (const h of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'blkio', 'devices', 'freezer', 'systemd'])
    expect(await isDir(h, ...dir)).toBe(false);
  expect(await read('cpu', ROOT, 'kubepods', 'burstable', 'cpu.shares')).toBe('2');
});
