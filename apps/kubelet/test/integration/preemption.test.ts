/**
 * Issue 17, critical pod preemption (upstream pkg/kubelet/preemption): in API mode a static pod is
 * critical; when it does not fit (here the pod slots of `maxPods: 3`), the kubelet preempts the least
 * important pod that frees the room — BestEffort before Burstable before Guaranteed — which ends
 * Failed/`Preempting` with a DisruptionTarget condition and a Warning event, counted in
 * `kubelet_preemptions`; the static pod starts once the preempted pod's containers are stopped.
 */
import { randomBytes } from 'node:crypto';
import { controlPlaneEnv } from '@kubelet-ts/test-support';
import type { ClusterKubelet } from './cluster-kubelet.js';
import { startClusterKubelet } from './cluster-kubelet.js';
import { BUSYBOX, busyboxPod, criContainersOf, eventually } from './harness.js';
import { kubectlFor } from './kubectl.js';

const cp = controlPlaneEnv();
const kubectl = kubectlFor(cp);
const ns = `kts-pre-${randomBytes(3).toString('hex')}`;

interface PodObj {
  metadata: { uid: string };
  status?: {
    phase?: string;
    reason?: string;
    message?: string;
    conditions?: Array<{ type: string; status: string; reason?: string; message?: string }>;
    containerStatuses?: Array<{ restartCount: number; state?: { running?: unknown } }>;
  };
}

let cluster: ClusterKubelet;

beforeAll(async () => {
  cluster = await startClusterKubelet(cp, kubectl, 'pre', ns, { config: ['maxPods: 3'] });
}, 200_000);

afterAll(async () => {
  await cluster?.kubelet.removeManifest('critical.json');
  await cluster?.teardown();
}, 180_000);

const apiPod = (name: string, resources?: Record<string, unknown>): unknown => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: ns },
  spec: {
    nodeName: cluster.kubelet.nodeName,
    terminationGracePeriodSeconds: 2,
    automountServiceAccountToken: false,
    containers: [{ name: 'c', image: BUSYBOX(), command: ['sleep', '3600'], ...(resources !== undefined ? { resources } : {}) }],
  },
});
const get = (name: string): Promise<PodObj | undefined> => kubectl.get<PodObj>('pod', '-n', ns, name);

it('a static pod short of a pod slot preempts the BestEffort pod (Failed/Preempting, event, metric) and starts after it stopped; a regular pod is OutOfpods', async () => {
  const small = { cpu: '10m', memory: '16Mi' };
  await kubectl.apply({
    apiVersion: 'v1',
    kind: 'List',
    items: [apiPod('best-effort'), apiPod('burstable', { requests: small }), apiPod('guaranteed', { requests: small, limits: small })],
  });
  for (const name of ['best-effort', 'burstable', 'guaranteed'])
    await eventually(`${name} Running`, async () => (await get(name))?.status?.phase === 'Running', 90_000, 500);

  await cluster.kubelet.writeManifest('critical.json', busyboxPod('critical', [{ name: 'c', command: ['sleep', '3600'] }]));

  const preempted = await eventually(
    'best-effort preempted',
    async () => {
      const p = await get('best-effort');
      return p?.status?.phase === 'Failed' ? p : undefined;
    },
    60_000,
    500,
  );
  expect(preempted.status).toMatchObject({ reason: 'Preempting', message: 'Preempted in order to admit critical pod' });
  expect(preempted.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
    status: 'True',
    reason: 'TerminationByKubelet',
    message: 'Pod was preempted by Kubelet to accommodate a critical pod.',
  });
  const mirror = `critical-${cluster.kubelet.nodeName}`;
  await eventually(
    'the critical pod Running',
    async () => (await kubectl.get<PodObj>('pod', '-n', 'default', mirror))?.status?.phase === 'Running',
    60_000,
    500,
  );
  // The others were not touched.
  for (const name of ['burstable', 'guaranteed']) {
    const p = await get(name);
    expect(p?.status?.phase).toBe('Running');
    expect(p?.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  }
  const events = await kubectl.json<{ items: Array<{ type: string; reason: string; message: string }> }>(
    'get',
    'events',
    '-n',
    ns,
    '--field-selector',
    'involvedObject.name=best-effort,reason=Preempting',
  );
  expect(events.items.map((e) => [e.type, e.message])).toEqual([['Warning', 'Preempted in order to admit critical pod']]);
  const metrics = await kubectl('get', '--raw', `/api/v1/nodes/${cluster.kubelet.nodeName}/proxy/metrics`);
  expect(metrics).toMatch(/^kubelet_preemptions\{preemption_signal="pods"\} 1$/m);

  // A regular pod is not critical: with the three slots taken it is refused, as upstream.
  await kubectl.apply(apiPod('late'));
  const late = await eventually(
    'late refused',
    async () => {
      const p = await get('late');
      return p?.status?.phase === 'Failed' ? p : undefined;
    },
    60_000,
    500,
  );
  expect(late.status).toMatchObject({
    reason: 'OutOfpods',
    message: "Pod was rejected: Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
  });

  // The critical pod's container was created only after the preempted one had stopped.
  const victim = (
    await cluster.kubelet.cri.runtime.listContainers({ filter: { labelSelector: { 'io.kubernetes.pod.uid': preempted.metadata.uid } } })
  ).containers[0];
  const victimStatus = await cluster.kubelet.cri.runtime.containerStatus({ containerId: victim?.id ?? '' });
  const [critical] = await criContainersOf(cluster.kubelet, 'critical');
  expect(victimStatus.status?.state).toBe('CONTAINER_EXITED');
  expect(BigInt(critical?.createdAt ?? 0)).toBeGreaterThanOrEqual(BigInt(victimStatus.status?.finishedAt ?? Number.MAX_SAFE_INTEGER));
}, 300_000);
