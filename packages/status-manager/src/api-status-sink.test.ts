import type { Pod, PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createApiStatusSink, STATUS_SYNC_PERIOD_MS } from './api-status-sink.js';
import type { ApiStatusSink, ApiStatusSinkOptions } from './api-types.js';
import { StatusManagerError } from './errors.js';
import { createStatusManager } from './status-manager.js';
import { FakeApiError, FakePodStatusApi } from './testing/fake-pod-status-api.js';
import type { VersionedPodStatus } from './types.js';

const T0 = '2026-01-01T00:00:00Z';

function apiPod(name: string, uid = `uid-${name}`, extra: Partial<Pod['metadata']> = {}): Pod {
  const pod = newPod({ name, namespace: 'ns1', uid, spec: { nodeName: 'kts-node' } });
  pod.metadata = { ...pod.metadata, resourceVersion: '1', ...extra };
  pod.status = { phase: 'Pending', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: T0 }] };
  return pod;
}

function running(ready = true): PodStatus {
  const r = ready ? 'True' : 'False';
  return {
    phase: 'Running',
    qosClass: 'BestEffort',
    hostIP: '10.0.0.5',
    hostIPs: [{ ip: '10.0.0.5' }],
    podIP: '10.244.0.7',
    podIPs: [{ ip: '10.244.0.7' }],
    startTime: '2026-01-01T00:00:01.250Z',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastTransitionTime: '2026-01-01T00:00:02Z' },
      { type: 'Initialized', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' },
      { type: 'Ready', status: r, lastTransitionTime: '2026-01-01T00:00:03Z' },
      { type: 'ContainersReady', status: r, lastTransitionTime: '2026-01-01T00:00:03Z' },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:09Z' },
    ],
    containerStatuses: [
      {
        name: 'app',
        ready,
        started: true,
        restartCount: 0,
        image: 'docker.io/library/busybox:1.36',
        imageID: 'docker.io/library/busybox@sha256:abc',
        containerID: 'containerd://c1',
        state: { running: { startedAt: '2026-01-01T00:00:02.999999999Z' } },
      },
    ],
  };
}

function terminated(phase: 'Succeeded' | 'Failed', message?: string): PodStatus {
  const s = running(false);
  s.phase = phase;
  const cs = s.containerStatuses?.[0];
  if (cs !== undefined)
    cs.state = { terminated: { exitCode: phase === 'Succeeded' ? 0 : 1, reason: 'Completed', ...(message ? { message } : {}) } };
  return s;
}

let version = 0;
const versioned = (pod: Pod, status: PodStatus, extra: Partial<VersionedPodStatus> = {}): VersionedPodStatus => ({
  uid: pod.metadata.uid,
  name: pod.metadata.name,
  namespace: pod.metadata.namespace,
  version: ++version,
  status,
  podIsFinished: false,
  at: Date.UTC(2026, 0, 1),
  ...extra,
});

interface Harness {
  api: FakePodStatusApi;
  clock: FakeClock;
  logger: RecordingLogger;
  sink: ApiStatusSink;
  stop(): Promise<void>;
  running: Set<string>;
  reclaimed: Set<string>;
}

function start(options: Partial<ApiStatusSinkOptions> = {}): Harness {
  const api = new FakePodStatusApi();
  const clock = new FakeClock();
  const logger = new RecordingLogger();
  const runningPods = new Set<string>();
  const reclaimed = new Set<string>();
  const sink = createApiStatusSink({
    podApi: api,
    podCouldHaveRunningContainers: (uid) => runningPods.has(uid),
    podResourcesAreReclaimed: (uid) => reclaimed.has(uid),
    clock,
    logger,
    ...options,
  });
  const controller = new AbortController();
  const done = sink.run(controller.signal);
  return {
    api,
    clock,
    logger,
    sink,
    running: runningPods,
    reclaimed,
    stop: async () => {
      controller.abort();
      await done;
    },
  };
}

const methods = (api: FakePodStatusApi): string[] => api.calls.map((c) => c.method);

describe('createApiStatusSink', () => {
  it('GETs the pod and PATCHes the merged status with the UID precondition; an unchanged status sends no PATCH', async () => {
    const h = start();
    const pod = apiPod('web');
    h.api.put(pod);
    h.sink.statusChanged(versioned(pod, running()));
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus']);
    const patch = h.api.patches[0] as { metadata: unknown; status: Record<string, unknown> };
    expect(patch.metadata).toEqual({ uid: 'uid-web' });
    expect(patch.status['$setElementOrder/conditions']).toEqual([
      { type: 'PodReadyToStartContainers' },
      { type: 'Initialized' },
      { type: 'Ready' },
      { type: 'ContainersReady' },
      { type: 'PodScheduled' },
    ]);
    // Timestamps at second precision; container statuses sent whole; the scheduler's PodScheduled untouched.
    expect(patch.status['startTime']).toBe('2026-01-01T00:00:01Z');
    expect(JSON.stringify(patch.status['containerStatuses'])).toContain('"startedAt":"2026-01-01T00:00:02Z"');
    expect((patch.status['conditions'] as Array<{ type: string }>).map((c) => c.type)).not.toContain('PodScheduled');
    const stored = h.api.pod('ns1', 'web');
    expect(stored?.status?.conditions?.find((c) => c.type === 'PodScheduled')?.lastTransitionTime).toBe(T0);
    expect(stored?.status?.phase).toBe('Running');

    // The same status again (a new version): GET, nothing to send.
    h.sink.statusChanged(versioned(pod, running()));
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus', 'get']);
    await h.stop();
  });

  it('sends changed container statuses whole and removed fields as null', async () => {
    const h = start();
    const pod = apiPod('web');
    h.api.put(pod);
    h.sink.statusChanged(versioned(pod, running(false)));
    await h.sink.whenIdle();
    const next = running(true);
    delete next.podIP;
    delete next.podIPs;
    h.sink.statusChanged(versioned(pod, next));
    await h.sink.whenIdle();
    const patch = h.api.patches[1] as { status: Record<string, unknown> };
    expect(patch.status['podIP']).toBeNull();
    expect(patch.status['containerStatuses']).toEqual([
      expect.objectContaining({
        name: 'app',
        ready: true,
        image: 'docker.io/library/busybox:1.36',
        state: { running: { startedAt: '2026-01-01T00:00:02Z' } },
      }),
    ]);
    expect(h.api.pod('ns1', 'web')?.status?.podIP).toBeUndefined();
    await h.stop();
  });

  it('sends ephemeralContainerStatuses (kubectl debug) whole, by name, with the rest of the status', async () => {
    const h = start();
    const pod = apiPod('web');
    pod.spec.ephemeralContainers = [
      { name: 'dbg', image: 'busybox:1.36', targetContainerName: 'app' },
      { name: 'aaa', image: 'busybox:1.36' },
    ];
    h.api.put(pod);
    h.sink.statusChanged(versioned(pod, running()));
    await h.sink.whenIdle();
    const debugged = running();
    debugged.ephemeralContainerStatuses = [
      {
        name: 'dbg',
        ready: false,
        restartCount: 0,
        image: 'docker.io/library/busybox:1.36',
        imageID: 'docker.io/library/busybox@sha256:abc',
        containerID: 'containerd://e1',
        state: { running: { startedAt: '2026-01-01T00:00:05.5Z' } },
      },
      {
        name: 'aaa',
        ready: false,
        restartCount: 0,
        image: 'busybox:1.36',
        imageID: '',
        state: { waiting: { reason: 'ContainerCreating' } },
      },
    ];
    h.sink.statusChanged(versioned(pod, debugged));
    await h.sink.whenIdle();
    const patch = h.api.patches[1] as { status: Record<string, unknown> };
    expect(Object.keys(patch.status)).toEqual(['ephemeralContainerStatuses']);
    // Whole, as Go writes it: ready false and restartCount 0 included.
    expect(patch.status['ephemeralContainerStatuses']).toEqual([
      {
        name: 'aaa',
        ready: false,
        restartCount: 0,
        image: 'busybox:1.36',
        imageID: '',
        state: { waiting: { reason: 'ContainerCreating' } },
      },
      {
        name: 'dbg',
        ready: false,
        restartCount: 0,
        image: 'docker.io/library/busybox:1.36',
        imageID: 'docker.io/library/busybox@sha256:abc',
        containerID: 'containerd://e1',
        state: { running: { startedAt: '2026-01-01T00:00:05Z' } },
      },
    ]);
    expect(h.api.pod('ns1', 'web')?.status?.ephemeralContainerStatuses?.map((c) => c.name)).toEqual(['aaa', 'dbg']);
    await h.stop();
  });

  it('drops the update of a pod the API does not have, and retries a failed PATCH at the next period', async () => {
    const h = start();
    const pod = apiPod('web');
    h.sink.statusChanged(versioned(pod, running()));
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get']);
    h.api.put(pod);
    h.api.failNext('patchStatus', new FakeApiError(500, 'InternalError', 'etcd is down'));
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'get', 'patchStatus']);
    expect(h.logger.records.some((r) => r.msg === 'Failed to update status for pod')).toBe(true);
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'get', 'patchStatus', 'get', 'patchStatus']);
    expect(h.api.pod('ns1', 'web')?.status?.phase).toBe('Running');
    // Sent: the next period does nothing.
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(h.api.calls).toHaveLength(5);
    await h.stop();
  });

  it('skips a pod that was deleted and recreated under the same name', async () => {
    const h = start();
    const pod = apiPod('web', 'uid-old');
    h.api.put(apiPod('web', 'uid-new'));
    h.sink.statusChanged(versioned(pod, running()));
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get']);
    expect(h.logger.records.find((r) => r.msg === 'Pod was deleted and then recreated, skipping status update')?.fields).toMatchObject({
      oldPodUID: 'uid-old',
      podUID: 'uid-new',
    });
    // Not retried every period.
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get']);
    await h.stop();
  });

  it("patches a static pod's status on its mirror pod, and waits while it has none", async () => {
    let mirrorUID = '';
    const h = start({
      mirrorPods: {
        mirrorPodUIDOf: (uid) => (uid === 'static-uid' ? mirrorUID : undefined),
        translatePodUID: (uid) => (uid !== '' && uid === mirrorUID ? 'static-uid' : uid),
      },
    });
    const staticPod = apiPod('etcd-kts-node', 'static-uid');
    h.sink.statusChanged(versioned(staticPod, running()));
    await h.sink.whenIdle();
    expect(h.api.calls).toEqual([]);
    mirrorUID = 'mirror-uid';
    h.api.put(apiPod('etcd-kts-node', 'mirror-uid', { annotations: { 'kubernetes.io/config.mirror': 'static-uid' } }));
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus']);
    expect((h.api.patches[0] as { metadata: unknown }).metadata).toEqual({ uid: 'mirror-uid' });
    await h.stop();
  });

  it('a wrong UID precondition is refused by the server (the fake as the real one: 422)', async () => {
    const api = new FakePodStatusApi();
    api.put(apiPod('web'));
    await expect(api.patchStatus('ns1', 'web', { metadata: { uid: 'other' }, status: { phase: 'Running' } })).rejects.toMatchObject({
      statusCode: 422,
      reason: 'Invalid',
    });
  });

  it('deletes a terminated pod for good once the kubelet is done with it: grace 0 and the UID precondition', async () => {
    const h = start();
    const pod = apiPod('job', 'uid-job', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    h.api.put(pod);
    h.running.add('uid-job');
    h.sink.statusChanged(versioned(pod, terminated('Succeeded')));
    await h.sink.whenIdle();
    // Containers may still run: the phase stays the API's (Pending), nothing is deleted.
    expect(h.api.pod('ns1', 'job')?.status?.phase).toBe('Pending');
    expect(methods(h.api)).toEqual(['get', 'patchStatus']);
    h.running.delete('uid-job');
    h.sink.statusChanged(versioned(pod, terminated('Succeeded')));
    await h.sink.whenIdle();
    // Terminal now, but the resources are not reclaimed yet.
    expect(h.api.pod('ns1', 'job')?.status?.phase).toBe('Succeeded');
    expect(methods(h.api)).toEqual(['get', 'patchStatus', 'get', 'patchStatus']);
    h.reclaimed.add('uid-job');
    h.sink.statusChanged(versioned(pod, terminated('Succeeded')));
    await h.sink.whenIdle();
    expect(h.api.calls.at(-1)).toEqual({
      method: 'delete',
      namespace: 'ns1',
      name: 'job',
      options: { gracePeriodSeconds: 0, uid: 'uid-job' },
    });
    expect(h.api.pod('ns1', 'job')).toBeUndefined();
    await h.stop();
  });

  it('a finished status (terminatePod) may be deleted at once; the reconciliation deletes once resources are reclaimed', async () => {
    const pod = apiPod('job', 'uid-job', { deletionTimestamp: '2026-01-01T00:00:30Z', deletionGracePeriodSeconds: 30 });
    const listed = new Map<string, Pod>();
    const h = start({ podLister: { get: (key) => listed.get(key) } });
    h.api.put(pod);
    h.sink.statusChanged(versioned(pod, terminated('Failed')));
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus']);
    listed.set('ns1/job', h.api.pod('ns1', 'job') as Pod);
    h.reclaimed.add('uid-job');
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus', 'get', 'delete']);

    const h2 = start();
    const other = apiPod('other', 'uid-other', { deletionTimestamp: '2026-01-01T00:00:30Z' });
    h2.api.put(other);
    h2.sink.statusChanged(versioned(other, terminated('Failed'), { podIsFinished: true }));
    await h2.sink.whenIdle();
    expect(methods(h2.api)).toEqual(['get', 'patchStatus', 'delete']);
    await h.stop();
    await h2.stop();
  });

  it('never deletes a mirror pod or a pod without deletionTimestamp, and swallows a 409 from a recreated pod', async () => {
    const h = start();
    const mirror = apiPod('m', 'uid-m', { deletionTimestamp: '2026-01-01T00:00:30Z', annotations: { 'kubernetes.io/config.mirror': 'h' } });
    const live = apiPod('live', 'uid-live');
    const gone = apiPod('gone', 'uid-gone', { deletionTimestamp: '2026-01-01T00:00:30Z' });
    for (const p of [mirror, live, gone]) {
      h.api.put(p);
      h.reclaimed.add(p.metadata.uid);
    }
    h.api.failNext('delete', new FakeApiError(409, 'Conflict', 'Precondition failed: UID in precondition: uid-gone'));
    for (const p of [mirror, live, gone]) h.sink.statusChanged(versioned(p, terminated('Failed')));
    await h.sink.whenIdle();
    expect(h.api.calls.filter((c) => c.method === 'delete').map((c) => c.name)).toEqual(['gone']);
    expect(h.logger.records.some((r) => r.msg === 'Pod was recreated before its final deletion; the new pod is left alone')).toBe(true);
    expect(h.logger.records.some((r) => r.level === 'error')).toBe(false);
    await h.stop();
  });

  it('reconciles every period a pod whose API status differs from the kubelet status, and only those', async () => {
    const pods = new Map<string, Pod>();
    const h = start({ podLister: { get: (key) => pods.get(key) } });
    const a = apiPod('a');
    const b = apiPod('b');
    h.api.put(a);
    h.api.put(b);
    h.sink.statusChanged(versioned(a, running()));
    h.sink.statusChanged(versioned(b, running()));
    await h.sink.whenIdle();
    for (const name of ['a', 'b']) pods.set(`ns1/${name}`, h.api.pod('ns1', name) as Pod);
    const before = h.api.calls.length;
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(h.api.calls.length).toBe(before);
    // Someone else overwrote b's phase: the next period puts it back.
    const tampered = structuredClone(h.api.pod('ns1', 'b') as Pod);
    (tampered.status as PodStatus).phase = 'Pending';
    h.api.put(tampered);
    pods.set('ns1/b', tampered);
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(h.api.calls.slice(before).map((c) => `${c.method} ${c.name}`)).toEqual(['get b', 'patchStatus b']);
    expect(h.api.pod('ns1', 'b')?.status?.phase).toBe('Running');
    await h.stop();
  });

  it('while the informer is not current, reconciles every pod by GET and PATCHes only those that differ', async () => {
    const pods = new Map<string, Pod>();
    const lister = { current: true };
    const h = start({ podLister: { get: (key) => pods.get(key), isCurrent: () => lister.current } });
    const a = apiPod('a');
    const b = apiPod('b');
    h.api.put(a);
    h.api.put(b);
    h.sink.statusChanged(versioned(a, running()));
    h.sink.statusChanged(versioned(b, running()));
    await h.sink.whenIdle();
    for (const name of ['a', 'b']) pods.set(`ns1/${name}`, h.api.pod('ns1', name) as Pod);
    // b changed in the API (the node lifecycle controller, during an outage) but the watch is down:
    // the informer still holds the old copy.
    const tampered = structuredClone(h.api.pod('ns1', 'b') as Pod);
    (tampered.status as PodStatus).phase = 'Pending';
    h.api.put(tampered);
    const before = h.api.calls.length;
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(h.api.calls.length).toBe(before);
    lister.current = false;
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(h.api.calls.slice(before).map((c) => `${c.method} ${c.name}`)).toEqual(['get a', 'get b', 'patchStatus b']);
    expect(h.api.pod('ns1', 'b')?.status?.phase).toBe('Running');
    await h.stop();
  });

  it('cuts terminated messages to 12 KiB in all and records the sync duration', async () => {
    const metrics = new RecordingMetrics();
    const h = start({ metrics });
    const pod = apiPod('big');
    h.api.put(pod);
    h.sink.statusChanged(versioned(pod, terminated('Failed', 'x'.repeat(20_000)), { at: h.clock.now() - 1500 }));
    await h.sink.whenIdle();
    const sent = JSON.stringify((h.api.patches[0] as { status: unknown }).status);
    expect(sent).toContain(`"message":"${'x'.repeat(12 * 1024)}"`);
    expect(sent).not.toContain('x'.repeat(12 * 1024 + 1));
    expect(metrics.observations('kubelet_pod_status_sync_duration_seconds')).toEqual([1.5]);
    await h.stop();
  });

  it('forgets a removed status, runs once at a time, and works behind the status manager', async () => {
    const h = start();
    await expect(h.sink.run(new AbortController().signal)).rejects.toThrow(StatusManagerError);
    const pod = apiPod('web');
    h.api.put(pod);
    const manager = createStatusManager({ sink: h.sink, clock: h.clock });
    manager.setPodStatus(pod, running());
    await h.sink.whenIdle();
    expect(h.api.pod('ns1', 'web')?.status?.phase).toBe('Running');
    manager.removeOrphanedStatuses(() => false);
    h.api.put(pod);
    await h.clock.advance(STATUS_SYNC_PERIOD_MS);
    await h.sink.whenIdle();
    expect(methods(h.api)).toEqual(['get', 'patchStatus']);
    await h.stop();
  });
});
