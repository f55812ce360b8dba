// The API status sink against the real kube-apiserver, with the node identity (Node authorizer and
// NodeRestriction): strategic merge PATCH of pods/status with the UID precondition, and the final
// DELETE with grace 0 and the UID precondition.
import { randomBytes } from 'node:crypto';
import type { Pod, PodStatus } from '@kubelet-ts/api';
import { isConflict, isNotFound, STRATEGIC_MERGE_PATCH_CONTENT_TYPE } from '@kubelet-ts/api';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { createKubeClient, KubeClientError as KubeError, loadKubeconfig, PatchType } from '@kubelet-ts/kube-client';
import type { HttpMethod, KubeClient } from '@kubelet-ts/kube-client';
import { createApiStatusSink } from '../../src/index.js';
import type { ApiStatusSink, PodStatusApi, VersionedPodStatus } from '../../src/index.js';
import { controlPlaneEnv, ensureNode, waitFor } from '@kubelet-ts/test-support';

const env = controlPlaneEnv();
const NODE = env.nodeName;
const ns = `kts-ps-status-${randomBytes(4).toString('hex')}`;
const GATE = 'example.com/load-balancer';
let admin: KubeClient;
let kubelet: KubeClient; // the node identity

const connect = async (kubeconfig: string): Promise<KubeClient> =>
  createKubeClient({
    connection: await loadKubeconfig(kubeconfig),
    name: 'kubelet-ts-status-manager-it',
    userAgent: 'kubelet-ts-status-manager-it',
    qps: -1,
    burst: 0,
    timeoutMs: 10_000,
    logger: noopLogger,
    clock: systemClock,
  });

/** The node identity's raw requests of the admission checks: the parsed body, or the KubeClientError. */
const nodeClient = {
  async request(method: HttpMethod, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    return (await kubelet.request({ method, path, body, contentType })).body;
  },
};

/** The kubelet's side of the port, over the node identity; every call recorded. */
function podStatusApi(kube: KubeClient, calls: string[]): PodStatusApi {
  const path = (namespace: string, name: string): string => `/api/v1/namespaces/${namespace}/pods/${name}`;
  return {
    get: (namespace, name) => {
      calls.push(`get ${name}`);
      return kube.get(path(namespace, name));
    },
    patchStatus: (namespace, name, patch) => {
      calls.push(`patch ${name}`);
      return kube.patch(`${path(namespace, name)}/status`, patch, PatchType.Strategic);
    },
    delete: (namespace, name, options) => {
      calls.push(`delete ${name}`);
      return kube.delete(path(namespace, name), {
        body: {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          gracePeriodSeconds: options.gracePeriodSeconds,
          preconditions: { uid: options.uid },
        },
      });
    },
  };
}

const getPod = async (name: string): Promise<Pod> => (await admin.get(`/api/v1/namespaces/${ns}/pods/${name}`)) as Pod;

async function createPod(name: string, readinessGates: boolean): Promise<Pod> {
  const pod = await createPodAsAdmin(name, readinessGates);
  // The Node authorizer learns of a new pod from its informer, a moment later: until then the node's
  // requests for it are 403. A kubelet sees pods only through its watch, after that; so does this test.
  await waitFor(`the node to be allowed to read pod ${name}`, async () =>
    kubelet.get(`/api/v1/namespaces/${ns}/pods/${name}`).then(
      () => true,
      () => undefined,
    ),
  );
  return pod;
}

async function createPodAsAdmin(name: string, readinessGates: boolean): Promise<Pod> {
  return (await admin.create(`/api/v1/namespaces/${ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: ns },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 30,
      ...(readinessGates ? { readinessGates: [{ conditionType: GATE }] } : {}),
      containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }],
    },
  })) as Pod;
}

function runningStatus(restartCount: number, containerID: string): PodStatus {
  const now = new Date().toISOString();
  return {
    phase: 'Running',
    qosClass: 'BestEffort',
    hostIP: env.nodeIp,
    hostIPs: [{ ip: env.nodeIp }],
    podIP: '10.244.9.9',
    podIPs: [{ ip: '10.244.9.9' }],
    startTime: now,
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: now },
      { type: 'Initialized', status: 'True', lastTransitionTime: now },
      { type: 'Ready', status: 'True', lastTransitionTime: now },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: now },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
    ],
    containerStatuses: [
      {
        name: 'app',
        ready: true,
        started: true,
        restartCount,
        image: 'docker.io/library/busybox:1.36',
        imageID: 'docker.io/library/busybox@sha256:0000000000000000000000000000000000000000000000000000000000000000',
        containerID: `containerd://${containerID}`,
        state: { running: { startedAt: now } },
        ...(restartCount > 0 ? { lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: now, finishedAt: now } } } : {}),
      },
    ],
  };
}

let version = 0;
const versioned = (pod: Pod, status: PodStatus, extra: Partial<VersionedPodStatus> = {}): VersionedPodStatus => ({
  uid: pod.metadata.uid,
  name: pod.metadata.name,
  namespace: pod.metadata.namespace,
  version: ++version,
  status,
  podIsFinished: false,
  at: Date.now(),
  ...extra,
});

describe('createApiStatusSink against the real API server', () => {
  const controller = new AbortController();
  const calls: string[] = [];
  const stillRunning = new Set<string>();
  let sink: ApiStatusSink;
  let running: Promise<void>;
  let release: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    admin = await connect(env.kubeconfig);
    kubelet = await connect(env.nodeKubeconfig);
    release = (await ensureNode(admin, NODE, 'status-manager-it')).release;
    await admin.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    sink = createApiStatusSink({
      podApi: podStatusApi(kubelet, calls),
      podCouldHaveRunningContainers: (uid) => stillRunning.has(uid),
      podResourcesAreReclaimed: (uid) => !stillRunning.has(uid),
    });
    running = sink.run(controller.signal);
  });
  afterAll(async () => {
    controller.abort();
    await running;
    await admin.delete(`/api/v1/namespaces/${ns}`).catch(() => undefined);
    await release?.();
    admin.closeAllConnections();
    kubelet.closeAllConnections();
  });

  it("patches pods/status: others' conditions survive, readiness gates count, container statuses are replaced whole", async () => {
    const created = await createPod('web', true);
    // What the scheduler and a load-balancer controller would have set.
    const scheduledAt = '2026-01-01T00:00:00Z';
    await admin.patch(
      `/api/v1/namespaces/${ns}/pods/web/status`,
      {
        status: {
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: scheduledAt },
            { type: GATE, status: 'False', lastTransitionTime: scheduledAt },
          ],
        },
      },
      PatchType.Strategic,
    );
    sink.statusChanged(versioned(created, runningStatus(0, 'c1')));
    await sink.whenIdle();
    let pod = await getPod('web');
    const condition = (type: string) => pod.status?.conditions?.find((c) => c.type === type);
    expect(pod.status?.phase).toBe('Running');
    expect(condition('PodScheduled')?.lastTransitionTime).toBe(scheduledAt);
    expect(condition(GATE)?.status).toBe('False');
    // The gate is False in the API: Ready is False whatever the kubelet generated.
    expect(condition('Ready')).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady' });
    expect(condition('ContainersReady')?.status).toBe('True');
    // Second precision on the wire.
    expect(pod.status?.startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // The controller opens the gate; the container restarted: containerStatuses replaced whole.
    await admin.patch(
      `/api/v1/namespaces/${ns}/pods/web/status`,
      { status: { conditions: [{ type: GATE, status: 'True', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] } },
      PatchType.Strategic,
    );
    // One status object for both sends: its timestamps must not move to the next second in between.
    const restarted = runningStatus(1, 'c2');
    sink.statusChanged(versioned(created, restarted));
    await sink.whenIdle();
    pod = await getPod('web');
    expect(condition('Ready')?.status).toBe('True');
    expect(pod.status?.containerStatuses).toHaveLength(1);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ containerID: 'containerd://c2', restartCount: 1, ready: true });
    expect(pod.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(1);

    // The same status again: GET only, no PATCH.
    const before = calls.length;
    sink.statusChanged(versioned(created, restarted));
    await sink.whenIdle();
    expect(calls.slice(before)).toEqual(['get web']);
  });

  it('a wrong UID precondition is refused, and a pod recreated under the name is left alone', async () => {
    const pod = await createPod('again', false);
    await expect(
      nodeClient.request(
        'PATCH',
        `/api/v1/namespaces/${ns}/pods/again/status`,
        { metadata: { uid: '00000000-0000-0000-0000-000000000000' }, status: { phase: 'Running' } },
        STRATEGIC_MERGE_PATCH_CONTENT_TYPE,
      ),
    ).rejects.toMatchObject({ statusCode: 422, reason: 'Invalid' });
    await admin.delete(`/api/v1/namespaces/${ns}/pods/again`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0 } });
    const recreated = await createPod('again', false);
    const before = calls.length;
    sink.statusChanged(versioned(pod, runningStatus(0, 'old')));
    await sink.whenIdle();
    expect(calls.slice(before)).toEqual(['get again']);
    expect((await getPod('again')).status?.phase).toBe('Pending');
    // A DELETE with the old UID as precondition is a 409 Conflict.
    const err: unknown = await podStatusApi(kubelet, [])
      .delete(ns, 'again', { gracePeriodSeconds: 0, uid: pod.metadata.uid })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeError);
    expect(isConflict(err)).toBe(true);
    expect((await getPod('again')).metadata.uid).toBe(recreated.metadata.uid);
  });

  it('after a graceful delete, the terminated pod is deleted for good once the kubelet is done', async () => {
    const created = await createPod('job', false);
    sink.statusChanged(versioned(created, runningStatus(0, 'j1')));
    await sink.whenIdle();
    // kubectl delete --wait=false: the pod only gets a deletionTimestamp.
    await admin.delete(`/api/v1/namespaces/${ns}/pods/job`, { body: { kind: 'DeleteOptions', apiVersion: 'v1' } });
    const deleting = await getPod('job');
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    expect(deleting.metadata.deletionGracePeriodSeconds).toBe(30);

    // Containers still stopping: the phase stays Running and nothing is deleted.
    stillRunning.add(created.metadata.uid);
    const done = runningStatus(0, 'j1');
    done.phase = 'Succeeded';
    done.containerStatuses = [
      {
        ...(done.containerStatuses?.[0] as NonNullable<PodStatus['containerStatuses']>[number]),
        ready: false,
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      },
    ];
    sink.statusChanged(versioned(created, done));
    await sink.whenIdle();
    expect((await getPod('job')).status?.phase).toBe('Running');
    expect(calls).not.toContain('delete job');

    stillRunning.delete(created.metadata.uid);
    sink.statusChanged(versioned(created, structuredClone(done)));
    await sink.whenIdle();
    expect(calls.filter((c) => c.endsWith(' job')).slice(-3)).toEqual(['get job', 'patch job', 'delete job']);
    await waitFor('the pod to be gone', async () =>
      getPod('job').then(
        () => undefined,
        (e: unknown) => (isNotFound(e) ? true : undefined),
      ),
    );
  });
});
