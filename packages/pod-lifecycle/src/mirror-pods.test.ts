import type { Pod } from '@kubelet-ts/api';
import { ConfigHashAnnotationKey, ConfigMirrorAnnotationKey, ConfigSourceAnnotationKey } from '@kubelet-ts/api';
import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createApiStatusSink, createStatusManager } from '@kubelet-ts/status-manager';
import { FakeApiError, FakePodStatusApi } from '@kubelet-ts/status-manager/testing';
import type { MirrorPodApi, MirrorPodManager, MirrorPodManagerOptions, MirrorPodNode } from './mirror-pods.js';
import { createMirrorPodManager } from './mirror-pods.js';
import { FakeMirrorPodApi, makePod } from './testing/index.js';

/** A static pod as the file source delivers it: source and config hash annotations, a UID derived from the hash. */
function staticPod(name: string, hash: string): Pod {
  return makePod({
    name,
    namespace: 'kube-system',
    uid: `static-${name}-${hash}`,
    annotations: { [ConfigSourceAnnotationKey]: 'file', [ConfigHashAnnotationKey]: hash },
  });
}

interface Harness {
  clock: FakeClock;
  api: FakeMirrorPodApi;
  logger: RecordingLogger;
  metrics: RecordingMetrics;
  manager: MirrorPodManager;
  /** What `getNode` returns; the test changes it. */
  node: MirrorPodNode | undefined;
  /** What `staticPods` returns; the test changes it. */
  statics: Pod[];
  /** What the API pod source does on a watch event: hand over the mirror pods the API now has. */
  deliver(): void;
}

function harness(extra: Partial<Omit<MirrorPodManagerOptions, 'api'>> & { api?: FakeMirrorPodApi } = {}): Harness {
  const clock = new FakeClock();
  const api = extra.api ?? new FakeMirrorPodApi();
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const h: Harness = {
    clock,
    api,
    logger,
    metrics,
    manager: createMirrorPodManager({
      nodeName: 'node-1',
      getNode: () => h.node,
      staticPods: () => h.statics,
      clock,
      logger,
      metrics,
      ...extra,
      api,
    }),
    node: { metadata: { uid: 'node-uid' } },
    statics: [],
    deliver: () => h.manager.setMirrorPods(api.mirrorPods()),
  };
  return h;
}

/** The API's mirror pod of a static pod, once created (and delivered, as the informer would). */
async function withMirror(h: Harness, pod: Pod): Promise<Pod> {
  h.statics = [...h.statics, pod];
  await h.manager.reconcile();
  h.deliver();
  h.api.calls.length = 0;
  const mirror = h.api.pod(pod.metadata.namespace, pod.metadata.name);
  if (mirror === undefined) throw new Error('no mirror pod was created');
  return mirror;
}

describe('mirror pods: creating', () => {
  it("creates a missing mirror pod: the static pod's copy with its hash, owned by the node, without uid, resourceVersion or status", async () => {
    const h = harness();
    const pod: Pod = {
      ...staticPod('etcd', 'h1'),
      status: { phase: 'Running' },
    };
    pod.metadata.resourceVersion = '7';
    const before = structuredClone(pod);
    h.statics = [pod];
    await h.manager.reconcile();

    const creates = h.api.callsOf('create');
    expect(creates).toHaveLength(1);
    const sent = creates[0]?.pod;
    expect(sent?.metadata).toEqual({
      name: 'etcd',
      namespace: 'kube-system',
      annotations: {
        [ConfigSourceAnnotationKey]: 'file',
        [ConfigHashAnnotationKey]: 'h1',
        [ConfigMirrorAnnotationKey]: 'h1',
      },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'node-1', uid: 'node-uid', controller: true }],
    });
    expect(sent).not.toHaveProperty('status');
    expect(sent).toMatchObject({ apiVersion: 'v1', kind: 'Pod', spec: pod.spec });
    // The static pod itself is left as it was.
    expect(pod).toEqual(before);
    expect(h.logger.find('Creating a mirror pod for static pod')[0]?.fields).toEqual({ pod: 'kube-system/etcd', podUID: pod.metadata.uid });
    // Statuses can go to the new mirror pod before the API pod source delivers it.
    expect(h.manager.mirrorPodUIDOf(pod.metadata.uid)).toBe('mirror-uid-1');
  });

  it('makes no API call while every static pod has its mirror pod', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    await withMirror(h, staticPod('apiserver', 'h2'));
    await h.manager.reconcile();
    await h.manager.reconcile();
    expect(h.api.calls).toEqual([]);
  });

  it('ignores pods that are not static, and mirror pods in what the source delivers only when they are mirror pods', async () => {
    const h = harness();
    h.statics = [makePod({ name: 'api-pod', annotations: { [ConfigSourceAnnotationKey]: 'api' } })];
    h.manager.setMirrorPods([makePod({ name: 'plain', namespace: 'kube-system' })]);
    await h.manager.reconcile();
    expect(h.api.calls).toEqual([]);
  });

  it('creates nothing while the node is unknown, has no UID or is being deleted, and creates once the node is there', async () => {
    const h = harness();
    h.statics = [staticPod('etcd', 'h1')];
    h.node = undefined;
    await h.manager.reconcile();
    h.node = { metadata: {} };
    await h.manager.reconcile();
    h.node = { metadata: { uid: 'node-uid', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    await h.manager.reconcile();
    expect(h.api.calls).toEqual([]);
    expect(h.logger.find('No need to create a mirror pod, since node has been removed from the cluster')).toHaveLength(1);
    expect(h.manager.mirrorPodUIDOf('static-etcd-h1')).toBe('');

    h.node = { metadata: { uid: 'node-uid' } };
    await h.manager.reconcile();
    expect(h.api.callsOf('create')).toHaveLength(1);
  });

  it('AlreadyExists with the same hash is its mirror pod (the source had not delivered it yet): no error, no back-off', async () => {
    const h = harness();
    const pod = staticPod('etcd', 'h1');
    h.statics = [pod];
    await h.manager.reconcile();
    // The manager restarts without having heard of the mirror pod it made.
    const h2 = harness({ api: h.api });
    h2.statics = [pod];
    h.api.calls.length = 0;
    await h2.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['create', 'get']);
    expect(h2.logger.records.filter((r) => r.level === 'error')).toEqual([]);
    expect(h2.manager.mirrorPodUIDOf(pod.metadata.uid)).toBe('mirror-uid-1');
    h.api.calls.length = 0;
    await h2.manager.reconcile();
    expect(h.api.calls).toEqual([]);
  });

  it('AlreadyExists with another pod under the name is an error, retried after back-off', async () => {
    const h = harness();
    // A pod of the API with the static pod's name that is not its mirror pod.
    h.api.put(makePod({ name: 'etcd', namespace: 'kube-system', uid: 'someone-elses' }));
    h.statics = [staticPod('etcd', 'h1')];
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['create', 'get']);
    const failure = h.logger.find('Failed creating a mirror pod')[0];
    expect(failure?.level).toBe('error');
    expect(failure?.fields.err).toBe(
      'pod "kube-system/etcd" exists and is not the mirror pod of the static pod: pods "etcd" already exists',
    );
    expect(h.manager.mirrorPodUIDOf('static-etcd-h1')).toBe('');

    h.api.calls.length = 0;
    await h.manager.reconcile();
    expect(h.api.calls).toEqual([]);
    await h.clock.advance(1_000);
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['create', 'get']);
  });

  it('an invalid pod from the API server is not taken for the mirror pod', async () => {
    const clock = new FakeClock();
    const api: MirrorPodApi = {
      create: () => Promise.reject(new FakeApiError(409, 'AlreadyExists', 'pods "etcd" already exists')),
      get: () => Promise.resolve({ metadata: { name: 42 } }),
      delete: () => Promise.resolve({}),
    };
    const logger = new RecordingLogger();
    const pod = staticPod('etcd', 'h1');
    const manager = createMirrorPodManager({
      api,
      nodeName: 'node-1',
      getNode: () => ({ metadata: { uid: 'n' } }),
      staticPods: () => [pod],
      clock,
      logger,
    });
    await manager.reconcile();
    const failure = logger.find('Failed creating a mirror pod')[0];
    expect(failure?.level).toBe('error');
    expect(failure?.fields.err).toMatch(/^invalid pod from the API server: GET pods\/kube-system\/etcd: metadata\.name: /);
    expect(manager.mirrorPodUIDOf(pod.metadata.uid)).toBe('');
  });

  it('keeps a removed static pod without a mirror (never an API pod of its own), and knows no other UID', () => {
    let pods = [staticPod('etcd', 'h1')];
    const manager = createMirrorPodManager({
      api: new FakeMirrorPodApi(),
      nodeName: 'node-1',
      getNode: () => ({ metadata: { uid: 'n' } }),
      staticPods: () => pods,
    });
    expect(manager.mirrorPodUIDOf('static-etcd-h1')).toBe('');
    pods = [];
    expect(manager.mirrorPodUIDOf('static-etcd-h1')).toBe('');
    expect(manager.mirrorPodUIDOf('api-pod')).toBeUndefined();
  });
});

describe('mirror pods: recreating and deleting', () => {
  it('recreates the mirror pod when the static pod changed (another config hash)', async () => {
    const h = harness();
    const old = await withMirror(h, staticPod('etcd', 'h1'));
    const updated = staticPod('etcd', 'h2');
    h.statics = [updated];
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['delete', 'create']);
    expect(h.api.callsOf('delete')[0]).toEqual({
      method: 'delete',
      namespace: 'kube-system',
      name: 'etcd',
      options: { gracePeriodSeconds: 0, uid: old.metadata.uid },
    });
    expect(h.api.callsOf('create')[0]?.pod.metadata.annotations?.[ConfigMirrorAnnotationKey]).toBe('h2');
    expect(h.logger.find('Deleted mirror pod because it is outdated')[0]?.fields).toEqual({
      pod: 'kube-system/etcd',
      podUID: old.metadata.uid,
    });
    expect(h.manager.mirrorPodUIDOf(updated.metadata.uid)).toBe('mirror-uid-2');
  });

  it('recreates a mirror pod that is being deleted', async () => {
    const h = harness();
    const pod = staticPod('etcd', 'h1');
    const mirror = await withMirror(h, pod);
    h.api.put({ ...mirror, metadata: { ...mirror.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    h.deliver();
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['delete', 'create']);
    expect(h.api.pod('kube-system', 'etcd')?.metadata).toMatchObject({ uid: 'mirror-uid-2' });
    expect(h.api.pod('kube-system', 'etcd')?.metadata.deletionTimestamp).toBeUndefined();
  });

  it('an outdated mirror pod already gone (NotFound) or replaced (Conflict) counts as deleted', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    h.api.pods.clear(); // deleted behind the manager's back; the source has not said so yet
    h.statics = [staticPod('etcd', 'h2')];
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['delete', 'create']);
    expect(h.api.pod('kube-system', 'etcd')?.metadata.annotations?.[ConfigMirrorAnnotationKey]).toBe('h2');
    expect(h.logger.records.filter((r) => r.level === 'error')).toEqual([]);
  });

  it('does not recreate while the node is being deleted, but still deletes the outdated mirror pod', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    h.node = { metadata: { uid: 'node-uid', deletionTimestamp: '2026-01-01T00:00:00Z' } };
    h.statics = [staticPod('etcd', 'h2')];
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['delete']);
    expect(h.api.pods.size).toBe(0);
  });

  it('deletes an orphaned mirror pod (its static pod is gone) with grace 0 and its UID as precondition', async () => {
    const h = harness();
    const keep = staticPod('apiserver', 'a1');
    await withMirror(h, keep);
    const orphan = await withMirror(h, staticPod('etcd', 'h1'));
    h.statics = [keep];
    await h.manager.reconcile();
    expect(h.api.calls).toEqual([
      { method: 'delete', namespace: 'kube-system', name: 'etcd', options: { gracePeriodSeconds: 0, uid: orphan.metadata.uid } },
    ]);
    expect([...h.api.pods.keys()]).toEqual(['kube-system/apiserver']);
    expect(h.manager.translatePodUID(orphan.metadata.uid)).toBe(orphan.metadata.uid);
  });
});

describe('mirror pods: back-off', () => {
  it('waits 1 s after a failed create, then 2 s, and starts over after a success', async () => {
    const h = harness();
    h.statics = [staticPod('etcd', 'h1')];
    h.api.failNext('create', new FakeApiError(500, 'InternalError', 'etcdserver: request timed out'));
    h.api.failNext('create', new FakeApiError(500, 'InternalError', 'etcdserver: request timed out'));
    const creates = (): number => h.api.callsOf('create').length;
    await h.manager.reconcile();
    expect(creates()).toBe(1);
    expect(h.logger.find('Failed creating a mirror pod')[0]?.fields.err).toBe('etcdserver: request timed out');
    await h.clock.advance(999);
    await h.manager.reconcile();
    expect(creates()).toBe(1);
    await h.clock.advance(1);
    await h.manager.reconcile();
    expect(creates()).toBe(2);
    await h.clock.advance(1_999);
    await h.manager.reconcile();
    expect(creates()).toBe(2);
    await h.clock.advance(1);
    await h.manager.reconcile();
    expect(creates()).toBe(3);
    expect(h.api.pods.size).toBe(1);

    // After the success, a failure backs off 1 s again.
    h.deliver();
    h.api.failNext('delete', new FakeApiError(503, 'ServiceUnavailable', 'unavailable'));
    h.statics = [staticPod('etcd', 'h2')];
    await h.manager.reconcile();
    await h.clock.advance(999);
    await h.manager.reconcile();
    expect(h.api.callsOf('delete')).toHaveLength(1);
    await h.clock.advance(1);
    await h.manager.reconcile();
    expect(h.api.callsOf('delete')).toHaveLength(2);
  });

  it('does not create a new mirror pod while the outdated one could not be deleted', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    h.api.failNext('delete', new FakeApiError(500, 'InternalError', 'boom'));
    h.statics = [staticPod('etcd', 'h2')];
    await h.manager.reconcile();
    expect(h.api.calls.map((c) => c.method)).toEqual(['delete']);
    expect(h.logger.find('Failed deleting mirror pod')[0]?.fields).toMatchObject({ pod: 'kube-system/etcd', err: 'boom' });
  });

  it('backs off a failed orphan deletion too', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    h.statics = [];
    h.api.failNext('delete', new FakeApiError(500, 'InternalError', 'boom'));
    await h.manager.reconcile();
    await h.manager.reconcile();
    expect(h.api.callsOf('delete')).toHaveLength(1);
    expect(h.logger.find('Encountered error when deleting mirror pod')).toHaveLength(1);
    await h.clock.advance(1_000);
    await h.manager.reconcile();
    expect(h.api.callsOf('delete')).toHaveLength(2);
    expect(h.api.pods.size).toBe(0);
  });
});

describe('mirror pods: UID translation', () => {
  it('maps a static pod to its current mirror pod and back; anything else as upstream GetUIDTranslations/TranslatePodUID', async () => {
    const h = harness();
    const etcd = staticPod('etcd', 'h1');
    const mirror = await withMirror(h, etcd);
    const noMirrorYet = staticPod('scheduler', 's1');
    h.node = undefined;
    h.statics = [...h.statics, noMirrorYet, makePod({ name: 'from-api', annotations: { [ConfigSourceAnnotationKey]: 'api' } })];
    await h.manager.reconcile();

    expect(h.manager.mirrorPodUIDOf(etcd.metadata.uid)).toBe(mirror.metadata.uid);
    expect(h.manager.mirrorPodUIDOf(noMirrorYet.metadata.uid)).toBe('');
    expect(h.manager.mirrorPodUIDOf(h.statics[2]?.metadata.uid ?? '')).toBeUndefined();
    expect(h.manager.mirrorPodUIDOf('unknown')).toBeUndefined();

    expect(h.manager.translatePodUID(mirror.metadata.uid)).toBe(etcd.metadata.uid);
    expect(h.manager.translatePodUID(etcd.metadata.uid)).toBe(etcd.metadata.uid);
    expect(h.manager.translatePodUID('unknown')).toBe('unknown');

    // Once the static pod changed, the old mirror pod is no longer its mirror pod, either way.
    const updated = staticPod('etcd', 'h2');
    h.statics = [updated, noMirrorYet];
    expect(h.manager.mirrorPodUIDOf(updated.metadata.uid)).toBe('');
    expect(h.manager.translatePodUID(mirror.metadata.uid)).toBe(mirror.metadata.uid);
  });

  it("lets the API status sink patch a static pod's status into its mirror pod", async () => {
    const h = harness();
    const etcd = staticPod('etcd', 'h1');
    const mirror = await withMirror(h, etcd);
    const podApi = new FakePodStatusApi();
    podApi.put(mirror);
    const sink = createApiStatusSink({
      podApi,
      podCouldHaveRunningContainers: () => true,
      podResourcesAreReclaimed: () => false,
      mirrorPods: h.manager,
      clock: h.clock,
    });
    const statusManager = createStatusManager({ sink, clock: h.clock });
    const controller = new AbortController();
    const running = sink.run(controller.signal);
    statusManager.setPodStatus(etcd, { phase: 'Running', podIP: '10.88.0.5' });
    await h.clock.advance(0);
    await sink.whenIdle();
    controller.abort();
    await running;
    expect(podApi.pod('kube-system', 'etcd')?.status).toMatchObject({ phase: 'Running', podIP: '10.88.0.5' });
    expect(podApi.calls.find((c) => c.method === 'patchStatus')).toMatchObject({ patch: { metadata: { uid: mirror.metadata.uid } } });
  });
});

describe('mirror pods: run', () => {
  it('reconciles at once, after every setMirrorPods and every period, and stops with the signal', async () => {
    const h = harness({ periodMs: 5_000 });
    const etcd = staticPod('etcd', 'h1');
    h.statics = [etcd];
    const controller = new AbortController();
    const running = h.manager.run(controller.signal);
    await h.clock.advance(0);
    expect(h.api.callsOf('create')).toHaveLength(1);
    h.deliver();

    // Someone deletes the mirror pod: the source's update brings it back at once.
    h.api.pods.clear();
    h.deliver();
    await h.clock.advance(0);
    expect(h.api.callsOf('create')).toHaveLength(2);
    h.deliver();
    await h.clock.advance(0);
    expect(h.api.callsOf('create')).toHaveLength(2);

    // A new static pod, with no source event: the next period makes its mirror pod.
    h.statics = [etcd, staticPod('scheduler', 's1')];
    await h.clock.advance(4_999);
    expect(h.api.callsOf('create')).toHaveLength(2);
    await h.clock.advance(1);
    expect(h.api.callsOf('create')).toHaveLength(3);

    await expect(h.manager.run(new AbortController().signal)).rejects.toMatchObject({ code: 'MIRROR_POD_ERROR' });
    controller.abort();
    await running;
    h.api.calls.length = 0;
    h.statics = [];
    h.deliver();
    await h.clock.advance(20_000);
    expect(h.api.calls).toEqual([]);
    expect(h.clock.pendingTimers).toBe(0);
  });

  it('resolves once the pass running at the abort ended, and that pass makes no further call', async () => {
    const api = new FakeMirrorPodApi();
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const create = api.create.bind(api);
    api.create = async (pod) => {
      await gate;
      return create(pod);
    };
    const h = harness({ api });
    h.statics = [staticPod('etcd', 'h1'), staticPod('scheduler', 's1')];
    const controller = new AbortController();
    const running = h.manager.run(controller.signal);
    await h.clock.advance(0);
    controller.abort();
    let stopped = false;
    void running.then(() => (stopped = true));
    await h.clock.advance(0);
    expect(stopped).toBe(false);
    release();
    await running;
    expect([...api.pods.keys()]).toEqual(['kube-system/etcd']);
    expect(api.callsOf('create')).toHaveLength(1);
  });

  it('counts the mirror pods (kubelet_mirror_pods)', async () => {
    const h = harness();
    await withMirror(h, staticPod('etcd', 'h1'));
    await withMirror(h, staticPod('apiserver', 'a1'));
    expect(h.metrics.value('kubelet_mirror_pods')).toBe(2);
    h.statics = [];
    await h.manager.reconcile();
    expect(h.metrics.value('kubelet_mirror_pods')).toBe(0);
  });
});
