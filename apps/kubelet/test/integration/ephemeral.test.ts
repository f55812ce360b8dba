/**
 * Issue 18 (points 5 and 6): `kubectl debug --target` on a pod of our kubelet in API mode, on the real
 * control plane: the ephemeral container starts in the target's PID namespace, shows in
 * `status.ephemeralContainerStatuses`, serves `kubectl logs -c` and `kubectl exec -c`, and its log
 * has a symlink in the kubelet's containers log dir (upstream /var/log/containers).
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import { BUSYBOX, eventually } from './harness.js';
import type { KubeletUnderTest } from './harness.js';
import type { ClusterKubelet } from './cluster-kubelet.js';
import { startClusterKubelet } from './cluster-kubelet.js';
import { conditionOf, kubectlFor } from './kubectl.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);
const ns = `kts-eph-${randomBytes(3).toString('hex')}`;
let kubelet: KubeletUnderTest;

interface StatusOfContainer {
  name: string;
  ready: boolean;
  started?: boolean;
  image: string;
  imageID: string;
  containerID?: string;
  state?: { running?: { startedAt?: string }; waiting?: { reason?: string }; terminated?: { exitCode: number } };
}
interface DebuggedPod {
  metadata: { uid: string };
  status?: {
    phase?: string;
    conditions?: Array<{ type: string; status: string }>;
    containerStatuses?: StatusOfContainer[];
    ephemeralContainerStatuses?: StatusOfContainer[];
  };
}

let cluster: ClusterKubelet;

beforeAll(async () => {
  cluster = await startClusterKubelet(cp, kubectl, 'eph', ns);
  kubelet = cluster.kubelet;
}, 200_000);

afterAll(() => cluster?.teardown(), 180_000);

it('kubectl debug --target: the ephemeral container runs in the target PID namespace, with status, logs, exec and a log symlink', async () => {
  await kubectl.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'app', namespace: ns },
    spec: {
      nodeName: kubelet.nodeName,
      terminationGracePeriodSeconds: 1,
      automountServiceAccountToken: false,
      // A process the debugger can only see in the target's PID namespace.
      containers: [{ name: 'c', image: BUSYBOX(), command: ['sleep', '7777'] }],
    },
  });
  await eventually(
    'the pod Running',
    async () => ((await kubectl.get<DebuggedPod>('pod', '-n', ns, 'app'))?.status?.phase === 'Running' ? true : undefined),
    90_000,
    500,
  );

  // Non-interactive: kubectl adds the ephemeral container through the ephemeralcontainers subresource and returns.
  await kubectl('debug', '-n', ns, 'app', `--image=${BUSYBOX()}`, '--target=c', '-c', 'dbg', '--', 'sh', '-c', 'ps; sleep 3600');

  const pod = await eventually(
    'dbg running in ephemeralContainerStatuses',
    async () => {
      const p = await kubectl.get<DebuggedPod>('pod', '-n', ns, 'app');
      return p?.status?.ephemeralContainerStatuses?.find((s) => s.name === 'dbg')?.state?.running !== undefined ? p : undefined;
    },
    90_000,
    500,
  );
  const dbg = pod.status?.ephemeralContainerStatuses?.find((s) => s.name === 'dbg');
  expect(dbg).toMatchObject({
    name: 'dbg',
    ready: false,
    image: BUSYBOX(),
    containerID: expect.stringMatching(/^containerd:\/\/[0-9a-f]{64}$/),
  });
  expect(dbg?.imageID).not.toBe('');
  expect(dbg?.started).toBeUndefined();
  // Not a regular container, and the pod stays Running and Ready on its own container.
  expect(pod.status?.containerStatuses?.map((s) => s.name)).toEqual(['c']);
  expect(pod.status?.phase).toBe('Running');
  expect(conditionOf(pod as never, 'Ready')).toBe('True');

  // ps in the debugger shows the target's processes: the PID namespace is the target's (CRI NamespaceMode TARGET).
  const logs = await eventually(
    'the debugger ps output',
    async () => {
      const out = await kubectl('logs', '-n', ns, 'app', '-c', 'dbg').catch(() => '');
      return out.includes('sleep 7777') ? out : undefined;
    },
    60_000,
    500,
  );
  expect(logs).toMatch(/^\s*1 .*sleep 7777$/m);

  expect(await kubectl('exec', '-n', ns, 'app', '-c', 'dbg', '--', 'echo', 'ok')).toBe('ok\n');

  // The symlink <pod>_<namespace>_<container>-<id>.log in the kubelet's containers log dir, to the container's log.
  const id = (dbg?.containerID ?? '').replace('containerd://', '');
  const link = path.join(kubelet.containerLogsDir, `app_${ns}_dbg-${id}.log`);
  expect(await fs.readlink(link)).toBe(path.join(kubelet.podLogsDir, `${ns}_app_${pod.metadata.uid}`, 'dbg', '0.log'));
  expect(await fs.readFile(link, 'utf8')).toContain('sleep 7777');
  // The regular container has its link too.
  const cId = (pod.status?.containerStatuses?.[0]?.containerID ?? '').replace('containerd://', '');
  expect((await fs.readdir(kubelet.containerLogsDir)).sort()).toEqual([`app_${ns}_c-${cId}.log`, `app_${ns}_dbg-${id}.log`].sort());
}, 240_000);
