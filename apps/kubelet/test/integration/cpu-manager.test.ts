/**
 * cpuManagerPolicy static (and topologyManagerPolicy over it) on the real runtime: a Guaranteed container with a whole CPU gets that CPU
 * alone (its cpuset cgroup on the host), every other container the shared pool, the assignment is in
 * cpu_manager_state as upstream writes it, and a pod that does not fit is refused as upstream does.
 * With the setting ignored every cpuset would be every CPU, and this fails.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { busyboxPod, containerState, createKubelet, env, eventually, waitHealthy } from './harness.js';
import type { ApiPod, KubeletUnderTest } from './harness.js';

const CGROUP_FS = '/sys/fs/cgroup';
const TEST_ROOT = process.env['KUBELET_TS_CGROUP_ROOT'] ?? '/kubelet-ts-test';
const ROOT = `${TEST_ROOT}/cpu-manager-it-${process.pid}-${Date.now()}`;
const CPUS = os.cpus().length;
const describeOnTwoOrMore = CPUS >= 2 ? describe : describe.skip;

let kubelet: KubeletUnderTest;

const read = async (file: string): Promise<string> => (await fs.readFile(file, 'utf8')).trim();
const cpusetOf = async (pod: ApiPod, qos: string[]): Promise<string> => {
  const id = containerState(pod, 'c')?.containerID?.replace(/^containerd:\/\//, '') ?? 'missing';
  return read(path.join(CGROUP_FS, 'cpuset', ROOT, 'kubepods', ...qos, `pod${pod.metadata.uid}`, id, 'cpuset.cpus'));
};
const sleeper = (name: string, resources?: Record<string, unknown>): Record<string, unknown> =>
  busyboxPod(name, [{ name: 'c', command: ['sleep', '3600'], ...(resources !== undefined ? { resources } : {}) }]);
const running = async (name: string): Promise<ApiPod> =>
  eventually(`${name} running`, async () => {
    const p = await kubelet.pod(name);
    return containerState(p, 'c')?.state?.running ? p : undefined;
  });

const failed = async (name: string): Promise<ApiPod> =>
  eventually(`${name} Failed`, async () => {
    const p = await kubelet.pod(name);
    return p?.status?.phase === 'Failed' ? p : undefined;
  });

async function removeCgroupTree(root: string): Promise<void> {
  const remove = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) await remove(path.join(dir, e.name));
    await fs.rmdir(dir).catch(() => undefined);
  };
  for (const h of await fs.readdir(CGROUP_FS, { withFileTypes: true }))
    if (h.isDirectory()) await remove(path.join(CGROUP_FS, h.name, root));
}

describeOnTwoOrMore('cpuManagerPolicy: static', () => {
  beforeAll(async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    kubelet = await createKubelet('cpu-manager');
    // CPU 0 reserved for the system: CPUs 1… can be given out.
    await kubelet.start([`--cgroup-root=${ROOT}`, '--cpu-manager-policy=static', '--reserved-cpus=0', '--cpu-manager-reconcile-period=1s']);
    await waitHealthy(kubelet);
  });

  afterAll(async () => {
    await kubelet?.cleanup();
    await removeCgroupTree(ROOT);
  });

  test('a Guaranteed whole-CPU container gets its CPU alone, the others share the rest; the checkpoint says so; what does not fit is refused', async () => {
    const exclusive = CPUS - 1;
    const guaranteed = { requests: { cpu: String(exclusive), memory: '32Mi' }, limits: { cpu: String(exclusive), memory: '32Mi' } };
    await kubelet.writeManifest('shared.json', sleeper('shared'));
    await kubelet.writeManifest('pinned.json', sleeper('pinned', guaranteed));
    const pinned = await running('pinned');
    const shared = await running('shared');
    const mine = CPUS === 2 ? '1' : `1-${CPUS - 1}`;
    expect(await cpusetOf(pinned, [])).toBe(mine);
    // The shared pool is what is left: the reserved CPU 0 (the reconcile loop moves a container started before).
    await eventually('the BestEffort container moved to the shared pool', async () => (await cpusetOf(shared, ['besteffort'])) === '0');

    const state = JSON.parse(await read(path.join(kubelet.rootDir, 'cpu_manager_state'))) as Record<string, unknown>;
    expect(state).toMatchObject({ policyName: 'static', defaultCpuSet: '0', entries: { [pinned.metadata.uid]: { c: mine } } });
    expect(typeof state['checksum']).toBe('number');

    await kubelet.writeManifest(
      'extra.json',
      sleeper('extra', { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } }),
    );
    const refused = await failed('extra');
    expect(refused.status?.reason).toBe('UnexpectedAdmissionError');
    expect(refused.status?.message).toBe(
      'Pod was rejected: Allocate failed due to not enough cpus available to satisfy request: requested=1, available=0, which is unexpected',
    );

    // Deleting the pinned pod gives its CPUs back to the shared pool.
    await kubelet.removeManifest('pinned.json');
    await eventually(
      'the shared pool is every CPU again',
      async () => (await cpusetOf(shared, ['besteffort'])) === (CPUS === 2 ? '0-1' : `0-${CPUS - 1}`),
      45_000,
    );
  });
});

describeOnTwoOrMore('topologyManagerPolicy: single-numa-node over the static CPU manager', () => {
  beforeAll(async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    kubelet = await createKubelet('topology-manager');
    await kubelet.start([
      `--cgroup-root=${ROOT}-tm`,
      '--cpu-manager-policy=static',
      '--reserved-cpus=0',
      '--topology-manager-policy=single-numa-node',
      '--topology-manager-scope=container',
    ]);
    await waitHealthy(kubelet);
  });

  afterAll(async () => {
    await kubelet?.cleanup();
    await removeCgroupTree(`${ROOT}-tm`);
  });

  test('a pod whose CPUs fit one NUMA node runs pinned; one that cannot be aligned is refused with TopologyAffinityError', async () => {
    const exclusive = CPUS - 1;
    await kubelet.writeManifest(
      'aligned.json',
      sleeper('aligned', { requests: { cpu: String(exclusive), memory: '32Mi' }, limits: { cpu: String(exclusive), memory: '32Mi' } }),
    );
    const aligned = await running('aligned');
    const id = containerState(aligned, 'c')?.containerID?.replace(/^containerd:\/\//, '') ?? 'missing';
    expect(await read(path.join(CGROUP_FS, 'cpuset', `${ROOT}-tm`, 'kubepods', `pod${aligned.metadata.uid}`, id, 'cpuset.cpus'))).toBe(
      CPUS === 2 ? '1' : `1-${CPUS - 1}`,
    );
    // No NUMA node has a free CPU left: the topology manager refuses before the CPU manager would.
    await kubelet.writeManifest(
      'unaligned.json',
      sleeper('unaligned', { requests: { cpu: '1', memory: '32Mi' }, limits: { cpu: '1', memory: '32Mi' } }),
    );
    const refused = await failed('unaligned');
    expect(refused.status?.reason).toBe('TopologyAffinityError');
    expect(refused.status?.message).toBe('Pod was rejected: Resources cannot be allocated with Topology locality');
  });
});
