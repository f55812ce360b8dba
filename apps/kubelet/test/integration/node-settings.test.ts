/**
 * Settings the kubelet applies to the node and to itself, each seen on the real node so that the
 * test fails when the setting is ignored: podsPerCore (the node's pod capacity and admission),
 * localStorageCapacityIsolation (ephemeral-storage in capacity), maxOpenFiles (the kubelet's
 * RLIMIT_NOFILE, as upstream sets it).
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import { busyboxPod, createKubelet, env, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

interface NodeView {
  status: { capacity: Record<string, string>; allocatable: Record<string, string> };
}

const nodeOf = async (kubelet: KubeletUnderTest): Promise<NodeView> =>
  (await (await fetch(`http://127.0.0.1:${kubelet.readOnlyPort}/node`)).json()) as NodeView;

/** The kubelet process of a test kubelet: the one whose command line names its root dir. */
async function kubeletPid(kubelet: KubeletUnderTest): Promise<number> {
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes('main.js') && cmdline.includes(`--root-dir=${kubelet.rootDir}`)) return Number(entry);
  }
  throw new Error(`no process runs the kubelet of ${kubelet.rootDir}`);
}

describe('node settings on the real node', () => {
  let kubelet: KubeletUnderTest | undefined;
  afterEach(async () => {
    await kubelet?.cleanup();
    kubelet = undefined;
  });

  test('podsPerCore caps the pods at one per CPU: capacity, allocatable, and the next pod is refused for want of a slot; maxOpenFiles is the kubelet limit', async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    kubelet = await createKubelet('pods-per-core');
    await kubelet.start(['--pods-per-core=1', '--max-open-files=4096']);
    await waitHealthy(kubelet);
    const cpus = String(os.cpus().length);
    const node = await nodeOf(kubelet);
    expect(node.status.capacity['pods']).toBe(cpus);
    expect(node.status.allocatable['pods']).toBe(cpus);
    // localStorageCapacityIsolation is on by default: the root dir's filesystem is ephemeral storage.
    expect(node.status.capacity['ephemeral-storage']).toMatch(/^\d+(Ki)?$/);

    // Upstream sets RLIMIT_NOFILE to maxOpenFiles (lowering it needs no privilege).
    const limits = await fs.readFile(`/proc/${await kubeletPid(kubelet)}/limits`, 'utf8');
    expect(limits).toMatch(/^Max open files\s+4096\s+4096\s+files\s*$/m);

    for (let i = 0; i <= os.cpus().length; i += 1) {
      await kubelet.writeManifest(`p${i}.json`, busyboxPod(`p${i}`, [{ name: 'c', command: ['sleep', '3600'] }]));
    }
    const phases = await eventually(
      'every pod admitted or refused',
      async () => {
        const pods = await kubelet!.pods();
        const decided = pods.filter((p) => p.status?.phase === 'Running' || p.status?.phase === 'Failed');
        return decided.length === os.cpus().length + 1 ? pods : undefined;
      },
      60_000,
    );
    const refused = phases.filter((p) => p.status?.phase === 'Failed');
    expect(refused).toHaveLength(1);
    // A static pod is critical: upstream tries to preempt for it, and with only static pods running cannot.
    expect(refused[0]?.status).toMatchObject({
      reason: 'UnexpectedAdmissionError',
      message:
        'Pod was rejected: Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: pods, q: 1), ]',
    });
  });

  test('localStorageCapacityIsolation: false leaves ephemeral storage out of the node', async () => {
    env('KUBELET_TS_CRI_ENDPOINT');
    kubelet = await createKubelet('no-local-storage', { config: ['localStorageCapacityIsolation: false'] });
    await kubelet.start();
    await waitHealthy(kubelet);
    const node = await nodeOf(kubelet);
    expect(node.status.capacity['ephemeral-storage']).toBeUndefined();
    expect(node.status.allocatable['ephemeral-storage']).toBeUndefined();
    expect(node.status.capacity['pods']).toBe('110');
  });
});
