/**
 * memoryManagerPolicy Static (with reservedMemory) on the real runtime: a Guaranteed container's
 * memory is pinned to NUMA node 0 — its entry in memory_manager_state as upstream writes it, and
 * cpuset.mems "0" in the container's runtime spec and cgroup, where a BestEffort container gets
 * none; a Guaranteed pod asking more than node 0 can give is refused as upstream refuses it; a
 * reservedMemory that does not add up to node allocatable stops the kubelet with upstream's message.
 * With the setting ignored there would be no entry, no cpuset.mems and no refusal: this fails.
 * The kubelet sees a NUMA node 0 1 GiB smaller than the machine (its meminfo bind-mounted over the real
 * one in the kubelet's own mount namespace), as on a machine with two NUMA nodes: a single-node
 * machine has node 0 = the machine, and no pod the resource predicate admits could be too big for it.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bindOver, busyboxPod, containerState, createKubelet, env, eventually, waitHealthy } from './harness.js';
import type { ApiPod, KubeletUnderTest } from './harness.js';

const CGROUP_FS = '/sys/fs/cgroup';
const TEST_ROOT = process.env['KUBELET_TS_CGROUP_ROOT'] ?? '/kubelet-ts-test';
const ROOT = `${TEST_ROOT}/memory-manager-it-${process.pid}-${Date.now()}`;
const MI = 1024 * 1024;
// kubeReserved 512Mi + evictionHard memory.available's default 100Mi: what reservedMemory must add up to.
const KUBE_RESERVED = ['--kube-reserved=memory=512Mi'];
const RESERVED = 612 * MI;
const NODE0_MEMINFO = '/sys/devices/system/node/node0/meminfo';
const NODE0_SMALLER_BY = 1024 * MI;

const read = async (file: string): Promise<string> => (await fs.readFile(file, 'utf8')).trim();
const memTotal = async (file: string): Promise<number> => Number(/MemTotal:\s*(\d+) kB/.exec(await read(file))?.[1] ?? 0) * 1024;
const containerId = (pod: ApiPod): string => containerState(pod, 'c')?.containerID?.replace(/^containerd:\/\//, '') ?? 'missing';
const sleeper = (name: string, resources?: Record<string, unknown>): Record<string, unknown> =>
  busyboxPod(name, [{ name: 'c', command: ['sleep', '3600'], ...(resources !== undefined ? { resources } : {}) }]);
const guaranteed = (memory: string): Record<string, unknown> => ({
  requests: { cpu: '100m', memory },
  limits: { cpu: '100m', memory },
});

/** The cpuset.mems containerd put in the container's OCI spec (CRI ContainerStatus verbose). */
async function specMems(kubelet: KubeletUnderTest, id: string): Promise<string | undefined> {
  const status = await kubelet.cri.runtime.containerStatus({ containerId: id, verbose: true });
  const info = JSON.parse(status.info['info'] ?? '{}') as { runtimeSpec?: { linux?: { resources?: { cpu?: { mems?: string } } } } };
  const mems = info.runtimeSpec?.linux?.resources?.cpu?.mems;
  return mems === '' ? undefined : mems;
}

async function removeCgroupTree(root: string): Promise<void> {
  const remove = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) if (e.isDirectory()) await remove(path.join(dir, e.name));
    await fs.rmdir(dir).catch(() => undefined);
  };
  for (const h of await fs.readdir(CGROUP_FS, { withFileTypes: true }))
    if (h.isDirectory()) await remove(path.join(CGROUP_FS, h.name, root));
}

describe('memoryManagerPolicy: Static', () => {
  let kubelet: KubeletUnderTest;

  let node0Dir = '';
  let node0Total = 0;

  beforeAll(async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    node0Dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kubelet-ts-numa-'));
    const real = await read(NODE0_MEMINFO);
    node0Total = (await memTotal(NODE0_MEMINFO)) - NODE0_SMALLER_BY;
    const smaller = real.replace(/MemTotal:(\s*)\d+ kB/, (_m, space: string) => `MemTotal:${space}${node0Total / 1024} kB`);
    await fs.writeFile(path.join(node0Dir, 'meminfo'), `${smaller}\n`);
    kubelet = await createKubelet('memory-manager', { launcher: bindOver(path.join(node0Dir, 'meminfo'), NODE0_MEMINFO) });
    await kubelet.start([`--cgroup-root=${ROOT}`, '--memory-manager-policy=Static', '--reserved-memory=0:memory=612Mi', ...KUBE_RESERVED]);
    await waitHealthy(kubelet);
  });

  afterAll(async () => {
    await kubelet?.cleanup();
    await removeCgroupTree(ROOT);
    await fs.rm(node0Dir, { recursive: true, force: true });
  });

  const running = async (name: string): Promise<ApiPod> =>
    eventually(`${name} running`, async () => {
      const p = await kubelet.pod(name);
      return containerState(p, 'c')?.state?.running ? p : undefined;
    });

  test('a Guaranteed container gets its memory on NUMA node 0: the checkpoint says so, and its cpuset.mems is 0', async () => {
    await kubelet.writeManifest('shared.json', sleeper('shared'));
    await kubelet.writeManifest('pinned.json', sleeper('pinned', guaranteed('64Mi')));
    const pinned = await running('pinned');
    const shared = await running('shared');

    const state = JSON.parse(await read(path.join(kubelet.rootDir, 'memory_manager_state'))) as {
      policyName: string;
      machineState: Record<string, { memoryMap: Record<string, { systemReserved: number; reserved: number }> }>;
      entries?: Record<string, Record<string, unknown>>;
      checksum: number;
    };
    expect(state.policyName).toBe('Static');
    expect(state.entries?.[pinned.metadata.uid]).toEqual({ c: [{ numaAffinity: [0], type: 'memory', size: 64 * MI }] });
    expect(state.entries?.[shared.metadata.uid]).toBeUndefined();
    expect(state.machineState['0']?.memoryMap['memory']).toMatchObject({ systemReserved: RESERVED, reserved: 64 * MI });
    expect(typeof state.checksum).toBe('number');

    expect(await specMems(kubelet, containerId(pinned))).toBe('0');
    expect(await specMems(kubelet, containerId(shared))).toBeUndefined();
    expect(
      await read(path.join(CGROUP_FS, 'cpuset', ROOT, 'kubepods', `pod${pinned.metadata.uid}`, containerId(pinned), 'cpuset.mems')),
    ).toBe('0');
  });

  test("a Guaranteed pod asking more than NUMA node 0 can give is refused with upstream's reason and message", async () => {
    // More than node 0's allocatable, less than the node's: the memory manager refuses it, not the resource predicate.
    const node0 = node0Total - RESERVED;
    const request = node0 + 256 * MI;
    expect(request).toBeLessThan((await memTotal('/proc/meminfo')) - RESERVED - 64 * MI);
    await kubelet.writeManifest('huge.json', sleeper('huge', guaranteed(String(request))));
    const refused = await eventually('huge Failed', async () => {
      const p = await kubelet.pod('huge');
      return p?.status?.phase === 'Failed' ? p : undefined;
    });
    expect(refused.status?.reason).toBe('UnexpectedAdmissionError');
    expect(refused.status?.message).toBe(
      'Pod was rejected: Allocate failed due to [memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available, which is unexpected',
    );
    const state = JSON.parse(await read(path.join(kubelet.rootDir, 'memory_manager_state'))) as { entries?: Record<string, unknown> };
    expect(state.entries?.[refused.metadata.uid]).toBeUndefined();
  });
});

describe('memoryManagerPolicy: Static with a reservedMemory that does not add up', () => {
  let kubelet: KubeletUnderTest;

  afterAll(async () => {
    await kubelet?.cleanup();
    await removeCgroupTree(`${ROOT}-bad`);
  });

  test("the kubelet does not start, with upstream's message, and writes no checkpoint", async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    kubelet = await createKubelet('memory-manager-bad');
    await kubelet.start([
      `--cgroup-root=${ROOT}-bad`,
      '--memory-manager-policy=Static',
      '--reserved-memory=0:memory=1Gi',
      ...KUBE_RESERVED,
    ]);
    await eventually('the kubelet exited', async () => !kubelet.running(), 30_000);
    expect(await kubelet.stop()).not.toBe(0);
    // Logged as text or JSON (where the quotes are escaped).
    const q = '\\\\?"';
    expect(kubelet.output()).toMatch(
      new RegExp(
        `the total amount ${q}1Gi${q} of type ${q}memory${q} is not equal to the value ${q}612Mi${q} determined by Node Allocatable feature`,
      ),
    );
    await expect(fs.access(path.join(kubelet.rootDir, 'memory_manager_state'))).rejects.toThrow();
  });
});
