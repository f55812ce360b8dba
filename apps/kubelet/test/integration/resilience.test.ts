/**
 * Issue 3, acceptance 5, 6 and 7: the kubelet rebuilds its state from the runtime after a
 * restart (no container restarted, restart counts kept); invalid manifests are reported with
 * file, field and reason while other pods are untouched; a missing runtime socket is retried
 * until it appears; a containerd restart under running pods restarts nothing.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { busyboxPod, containerState, createKubelet, criContainersOf, env, eventually, runtimeScript, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

let kubelet: KubeletUnderTest;

beforeAll(async () => {
  kubelet = await createKubelet('resilience');
});

afterAll(async () => {
  await kubelet.cleanup();
});

/** Container IDs and restart counts of the running containers of a pod, as /pods reports them. */
async function snapshot(name: string): Promise<Record<string, string>> {
  const pod = await kubelet.pod(name);
  const out: Record<string, string> = {};
  for (const status of pod?.status?.containerStatuses ?? []) {
    if (status.state?.running === undefined || status.containerID === undefined) throw new Error(`${name}/${status.name} not running`);
    out[status.name] = `${status.containerID}#${status.restartCount}`;
  }
  if (Object.keys(out).length === 0) throw new Error(`${name} has no container statuses`);
  return out;
}

test('runtime socket missing at start: a clear error, retries, and pods start once it appears', async () => {
  const socketDir = await fs.mkdtemp(path.join(kubelet.hostDir, 'sock-'));
  const socket = path.join(socketDir, 'cri.sock');
  await kubelet.writeManifest(
    'steady.yaml',
    busyboxPod('steady', [
      { name: 'a', command: ['sleep', '3600'] },
      { name: 'b', command: ['sleep', '3600'] },
    ]),
  );
  // A container that fails once, then runs: restartCount 1 must survive kubelet restarts.
  await kubelet.writeManifest(
    'once.yaml',
    busyboxPod(
      'once',
      [
        {
          name: 'c',
          command: ['sh', '-c', 'if [ -f /host/once-ran ]; then exec sleep 3600; fi; touch /host/once-ran; exit 1'],
          volumeMounts: [{ name: 'host', mountPath: '/host' }],
        },
      ],
      { volumes: [{ name: 'host', hostPath: { path: kubelet.hostDir, type: 'Directory' } }] },
    ),
  );
  await kubelet.start([`--container-runtime-endpoint=unix://${socket}`]);
  await eventually('a clear error naming the missing socket', async () => kubelet.output().includes(socket), 20_000);
  expect(kubelet.running()).toBe(true);
  // The socket appears (a link to the real containerd socket): the kubelet connects by itself.
  await fs.symlink(env('KUBELET_TS_CRI_ENDPOINT').replace(/^unix:\/\//, ''), socket);
  await waitHealthy(kubelet, 60_000);
  await eventually('steady running', async () => (await kubelet.pod('steady'))?.status?.phase === 'Running', 60_000);
  await eventually(
    'once running after one restart',
    async () => {
      const status = containerState(await kubelet.pod('once'), 'c');
      return status?.restartCount === 1 && status.state?.running !== undefined;
    },
    60_000,
  );
  await kubelet.stop();
});

test('restarting the kubelet five times leaves every container ID and restart count unchanged', async () => {
  await kubelet.start();
  await waitHealthy(kubelet);
  const before = {
    steady: await eventually('steady snapshot', () => snapshot('steady')),
    once: await eventually('once snapshot', () => snapshot('once')),
  };
  expect(before.once.c).toMatch(/#1$/);
  const criBefore = (await criContainersOf(kubelet, 'steady')).map((c) => c.id).sort();
  for (let i = 0; i < 5; i++) {
    expect(await kubelet.stop()).toBe(0);
    await kubelet.start();
    await waitHealthy(kubelet);
    // Let the restarted kubelet see its sources and sync every pod at least once.
    await eventually(
      'pods synced after restart',
      async () => {
        const pods = await kubelet.pods();
        return pods.length === 2 && pods.every((p) => p.status?.phase === 'Running');
      },
      30_000,
    );
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect({ steady: await snapshot('steady'), once: await snapshot('once') }).toEqual(before);
  }
  expect((await criContainersOf(kubelet, 'steady')).map((c) => c.id).sort()).toEqual(criBefore);
});

test('invalid manifests are reported with file and reason; the kubelet stays up, other pods are untouched, and fixing a file starts its pod', async () => {
  const before = await snapshot('steady');
  const badYaml = 'apiVersion: v1\nkind: Pod\nmetadata: {name: broken\nspec: [';
  await kubelet.writeManifest('bad-yaml.yaml', badYaml);
  await kubelet.writeManifest(
    'dup.yaml',
    busyboxPod('dup', [
      { name: 'same', command: ['sleep', '3600'] },
      { name: 'same', command: ['sleep', '3600'] },
    ]),
  );
  await kubelet.writeManifest('no-containers.json', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'empty' },
    spec: { containers: [] },
  });
  await kubelet.writeManifest(
    'bad-quantity.yaml',
    busyboxPod('badq', [{ name: 'c', command: ['sleep', '3600'], resources: { limits: { memory: '12 parsecs' } } }]),
  );
  await eventually(
    'every invalid file reported with its name and the field',
    async () => {
      const out = kubelet.output();
      return (
        out.includes('bad-yaml.yaml') &&
        /dup\.yaml.*spec\.containers\[1\]\.name/.test(out) &&
        /no-containers\.json.*spec\.containers/.test(out) &&
        /bad-quantity\.yaml.*spec\.containers\[0\]\.resources\.limits\[memory\]/.test(out)
      );
    },
    30_000,
  );
  expect(kubelet.running()).toBe(true);
  const names = (await kubelet.pods()).map((p) => p.metadata.name);
  expect(names.some((n) => n.startsWith('dup-') || n.startsWith('empty-') || n.startsWith('badq-') || n.startsWith('broken'))).toBe(false);
  expect(await snapshot('steady')).toEqual(before);

  // Fixing a file starts its pod.
  await kubelet.writeManifest(
    'dup.yaml',
    busyboxPod('dup', [
      { name: 'one', command: ['sleep', '3600'] },
      { name: 'two', command: ['sleep', '3600'] },
    ]),
  );
  await eventually('dup Running once fixed', async () => (await kubelet.pod('dup'))?.status?.phase === 'Running', 30_000);
  for (const file of ['bad-yaml.yaml', 'no-containers.json', 'bad-quantity.yaml']) await kubelet.removeManifest(file);
  expect(await snapshot('steady')).toEqual(before);
});

test('containerd restarted under running pods: the kubelet reconnects and restarts no container', async () => {
  const before = { steady: await snapshot('steady'), once: await snapshot('once') };
  await runtimeScript('restart-containerd');
  // After the restart the kubelet keeps working: a new pod starts, and nothing was restarted.
  await kubelet.writeManifest('after.yaml', busyboxPod('after', [{ name: 'c', command: ['sleep', '3600'] }]));
  await eventually(
    'a new pod runs after the runtime restart',
    async () => (await kubelet.pod('after'))?.status?.phase === 'Running',
    60_000,
  );
  await waitHealthy(kubelet);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  expect({ steady: await snapshot('steady'), once: await snapshot('once') }).toEqual(before);
  expect(kubelet.running()).toBe(true);
});
