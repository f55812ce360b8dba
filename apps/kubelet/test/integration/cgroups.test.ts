/**
 * Issue 5: the QoS cgroup hierarchy and pod cgroups on the real cgroup v1 hierarchies. Each
 * kubelet gets its own cgroupRoot under $KUBELET_TS_CGROUP_ROOT, removed afterwards.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busyboxPod, containerState, createKubelet, criSandboxesOf, env, eventually, waitHealthy } from './harness.js';
import type { ApiPod, KubeletUnderTest } from './harness.js';

const CGROUP_FS = '/sys/fs/cgroup';
const TEST_ROOT = process.env['KUBELET_TS_CGROUP_ROOT'] ?? '/kubelet-ts-test';
const ROOT = `${TEST_ROOT}/cgroups-it-${process.pid}-${Date.now()}`;
const MiB = 1024 * 1024;

let kubelet: KubeletUnderTest;
let broken: KubeletUnderTest | undefined;

const cg = (hierarchy: string, ...parts: string[]): string => path.join(CGROUP_FS, hierarchy, ROOT, ...parts);
const read = async (file: string): Promise<string> => (await fs.readFile(file, 'utf8')).trim();
const isDir = async (dir: string): Promise<boolean> => (await fs.stat(dir).catch(() => undefined))?.isDirectory() ?? false;
const containerId = (pod: ApiPod | undefined, name: string): string | undefined =>
  containerState(pod, name)?.containerID?.replace(/^containerd:\/\//, '');

/** Removes a cgroup tree deepest first in every v1 hierarchy and the unified one. */
async function removeCgroupTree(root: string): Promise<void> {
  const remove = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) await remove(path.join(dir, e.name));
    await fs.rmdir(dir).catch(() => undefined);
  };
  for (const h of await fs.readdir(CGROUP_FS, { withFileTypes: true })) {
    if (h.isDirectory()) await remove(path.join(CGROUP_FS, h.name, root));
  }
}

beforeAll(async () => {
  env('KUBELET_TS_CRI_ENDPOINT');
  kubelet = await createKubelet('cgroups');
  await kubelet.start([`--cgroup-root=${ROOT}`, '--kube-reserved=memory=256Mi,cpu=100m']);
  await waitHealthy(kubelet);
});

afterAll(async () => {
  // Pods through CRI first (cleanup stops the kubelet, then stops and removes our sandboxes), then the cgroups.
  await kubelet?.cleanup();
  await broken?.cleanup();
  await removeCgroupTree(ROOT);
});

test('the QoS hierarchy is created under cgroupRoot with node allocatable enforced on kubepods', async () => {
  await eventually('kubepods, burstable and besteffort in every hierarchy', async () => {
    for (const h of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids']) {
      if (!(await isDir(cg(h, 'kubepods', 'burstable'))) || !(await isDir(cg(h, 'kubepods', 'besteffort')))) return false;
    }
    return true;
  });
  const memTotal = Number(/^MemTotal:\s+(\d+) kB/m.exec(await fs.readFile('/proc/meminfo', 'utf8'))?.[1]) * 1024;
  expect(Number(await read(cg('memory', 'kubepods', 'memory.limit_in_bytes')))).toBe(Math.floor((memTotal - 256 * MiB) / 4096) * 4096);
  expect(Number(await read(cg('cpu', 'kubepods', 'cpu.shares')))).toBe(Math.floor(((os.cpus().length * 1000 - 100) * 1024) / 1000));
  expect(await read(cg('cpu', 'kubepods', 'besteffort', 'cpu.shares'))).toBe('2');
  expect(await read(cg('cpuset', 'kubepods', 'burstable', 'cpuset.cpus'))).not.toBe('');
});

test('Burstable, BestEffort and Guaranteed pods get their pod cgroups with the computed limits, containers inside; all gone after deletion', async () => {
  await kubelet.writeManifest(
    'burst.yaml',
    busyboxPod('burst', [
      {
        name: 'c',
        command: ['sleep', '3600'],
        resources: { requests: { cpu: '100m', memory: '32Mi' }, limits: { cpu: '200m', memory: '64Mi' } },
      },
    ]),
  );
  await kubelet.writeManifest('be.yaml', busyboxPod('be', [{ name: 'c', command: ['sleep', '3600'] }]));
  await kubelet.writeManifest(
    'guar.yaml',
    busyboxPod('guar', [{ name: 'c', command: ['sleep', '3600'], resources: { limits: { cpu: '250m', memory: '48Mi' } } }]),
  );

  const running = async (name: string): Promise<ApiPod> =>
    eventually(`${name} running`, async () => {
      const p = await kubelet.pod(name);
      return containerState(p, 'c')?.state?.running ? p : undefined;
    });
  const burst = await running('burst');
  const be = await running('be');
  const guar = await running('guar');

  const burstDir = ['kubepods', 'burstable', `pod${burst.metadata.uid}`];
  expect(await read(cg('cpu', ...burstDir, 'cpu.shares'))).toBe('102');
  expect(await read(cg('cpu', ...burstDir, 'cpu.cfs_quota_us'))).toBe('20000');
  expect(await read(cg('cpu', ...burstDir, 'cpu.cfs_period_us'))).toBe('100000');
  expect(await read(cg('memory', ...burstDir, 'memory.limit_in_bytes'))).toBe(String(64 * MiB));
  // The container sits inside its pod cgroup, and its process is in it.
  const id = containerId(burst, 'c');
  expect(id).toBeDefined();
  expect(await isDir(cg('memory', ...burstDir, id ?? 'missing'))).toBe(true);
  const procs = (await read(cg('memory', ...burstDir, id ?? 'missing', 'cgroup.procs'))).split('\n').filter((l) => l !== '');
  expect(procs.length).toBeGreaterThan(0);
  const procCgroup = await fs.readFile(`/proc/${procs[0]}/cgroup`, 'utf8');
  expect(procCgroup).toContain(`memory:${ROOT}/kubepods/burstable/pod${burst.metadata.uid}/${id}`);
  // Burstable's shares follow its pods' requests (100m → 102).
  expect(await read(cg('cpu', 'kubepods', 'burstable', 'cpu.shares'))).toBe('102');

  const beDir = ['kubepods', 'besteffort', `pod${be.metadata.uid}`];
  expect(await read(cg('cpu', ...beDir, 'cpu.shares'))).toBe('2');
  expect(await isDir(cg('memory', ...beDir, containerId(be, 'c') ?? 'missing'))).toBe(true);

  const guarDir = ['kubepods', `pod${guar.metadata.uid}`];
  expect(await read(cg('cpu', ...guarDir, 'cpu.shares'))).toBe('256');
  expect(await read(cg('cpu', ...guarDir, 'cpu.cfs_quota_us'))).toBe('25000');
  expect(await read(cg('memory', ...guarDir, 'memory.limit_in_bytes'))).toBe(String(48 * MiB));
  expect(await isDir(cg('memory', ...guarDir, containerId(guar, 'c') ?? 'missing'))).toBe(true);

  for (const f of ['burst.yaml', 'be.yaml', 'guar.yaml']) await kubelet.removeManifest(f);
  for (const dir of [burstDir, beDir, guarDir]) {
    await eventually(
      `pod cgroup ${dir.join('/')} removed from every hierarchy`,
      async () => {
        for (const h of ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'freezer', 'devices', 'blkio', 'systemd'])
          if (await isDir(cg(h, ...dir))) return false;
        return true;
      },
      45_000,
    );
  }
  await eventually(
    'Burstable back to the minimum shares',
    async () => (await read(cg('cpu', 'kubepods', 'burstable', 'cpu.shares'))) === '2',
    15_000,
  );
});

test('a container over its memory limit ends OOMKilled and /pods says so; the pod cgroup goes once the pod is terminal', async () => {
  await kubelet.writeManifest(
    'oom.yaml',
    busyboxPod(
      'oom',
      [
        {
          name: 'c',
          command: ['sh', '-c', 'tail /dev/zero'],
          resources: { limits: { memory: '16Mi' }, requests: { memory: '16Mi', cpu: '50m' } },
        },
      ],
      { restartPolicy: 'Never' },
    ),
  );
  const uid = await eventually('oom in /pods', async () => (await kubelet.pod('oom'))?.metadata.uid, 20_000, 50);
  const podDir = ['kubepods', 'burstable', `pod${uid}`];
  // The pod cgroup (made before the sandbox) carries the pod's memory limit.
  expect(await eventually('the oom pod cgroup', async () => read(cg('memory', ...podDir, 'memory.limit_in_bytes')), 10_000, 50)).toBe(
    String(16 * MiB),
  );
  const pod = await eventually(
    'oom terminated',
    async () => {
      const p = await kubelet.pod('oom');
      return containerState(p, 'c')?.state?.terminated ? p : undefined;
    },
    45_000,
  );
  expect(containerState(pod, 'c')?.state?.terminated).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
  expect(pod.status?.phase).toBe('Failed');
  // Terminal under restartPolicy Never: the pod is terminated and its cgroup removed, though its manifest stays.
  await eventually(
    'the terminal pod cgroup removed',
    async () => !(await isDir(cg('memory', ...podDir))) && !(await isDir(cg('cpu', ...podDir))),
    30_000,
  );
  await kubelet.removeManifest('oom.yaml');
});

test('a limit below its request is rejected with a clear reason and never runs', async () => {
  await kubelet.writeManifest(
    'bad-limits.yaml',
    busyboxPod('bad-limits', [
      { name: 'c', command: ['sleep', '3600'], resources: { requests: { memory: '128Mi' }, limits: { memory: '64Mi' } } },
    ]),
  );
  await eventually(
    'the validation error in the kubelet log',
    async () => /bad-limits\.yaml[\s\S]*requests\[memory\][\s\S]*must be less than or equal to memory limit/.test(kubelet.output()),
    20_000,
  );
  expect(await kubelet.pod('bad-limits')).toBeUndefined();
  expect(await criSandboxesOf(kubelet, 'bad-limits')).toEqual([]);
  await kubelet.removeManifest('bad-limits.yaml');
});

test('a cgroupRoot that cannot be created gives a clear error; the kubelet keeps serving and pods fail to sync with that reason', async () => {
  broken = await createKubelet('cgroups-bad');
  // cgroup.procs is a regular file in every hierarchy: nothing can be created under it.
  const badRoot = `${TEST_ROOT}/cgroup.procs/kubelet`;
  await broken.start([`--cgroup-root=${badRoot}`]);
  await waitHealthy(broken);
  // The log quotes (and escapes) the root: match around the quotes.
  const rootError = new RegExp(`cannot create the pod cgroup hierarchy under cgroupRoot \\\\?"${badRoot}\\\\?": .*ENOTDIR`);
  await eventually('the cgroup root error in the log', async () => rootError.test(broken?.output() ?? ''), 15_000);
  await broken.writeManifest('p.yaml', busyboxPod('p', [{ name: 'c', command: ['sleep', '3600'] }]));
  await eventually(
    'the pod sync error',
    async () =>
      /failed to ensure that the pod \\?"default\/p-[^"\\]+\\?" cgroups exist and are correctly applied: pod cgroup not created: cannot create the pod cgroup hierarchy under cgroupRoot/.test(
        broken?.output() ?? '',
      ),
    20_000,
  );
  const response = await fetch(`http://127.0.0.1:${broken.healthzPort}/healthz`);
  expect(response.status).toBe(200);
  const pod = await broken.pod('p');
  expect(containerState(pod, 'c')?.state?.waiting?.reason).toBe('ContainerCreating');
  expect(await criSandboxesOf(broken, 'p')).toEqual([]);
});
