import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import { FakeVolumeManager } from '@kubelet-ts/volume-manager/testing';
import type { Pod } from '@kubelet-ts/api';
import { ConfigHashAnnotationKey, ConfigMirrorAnnotationKey, ConfigSourceAnnotationKey } from '@kubelet-ts/api';
import { createApiStatusSink, createStatusManager } from '@kubelet-ts/status-manager';
import { FakePodStatusApi } from '@kubelet-ts/status-manager/testing';
import { createMirrorPodManager, createPodLifecycle } from './index.js';
import { FakeMirrorPodApi, makePod } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  let rootDir: string;
  beforeEach(async () => {
    rootDir = await mkdtemp(join(tmpdir(), 'pod-lifecycle-readme-'));
  });
  afterEach(async () => {
    await rm(rootDir, { recursive: true, force: true });
  });

  it('runs the usage snippet, which is the README block verbatim', async () => {
    const runtime = new FakeContainerRuntime();
    const getNodeIPs = (): string[] => ['192.168.1.10'];
    const volumes = new FakeVolumeManager(rootDir);
    const pod = makePod({ name: 'web' });

    // README:begin
    const statusManager = createStatusManager(); // where pod statuses are kept (and sent, in API mode)
    const lifecycle = createPodLifecycle({ runtime, nodeName: 'node-1', getNodeIPs, volumes, rootDir, statusManager });
    const controller = new AbortController();
    const running = lifecycle.run(controller.signal); // PLEG, sync ticker, housekeeping, container GC
    const started = new Promise<void>((resolve) => {
      statusManager.onStatusChange((_pod, podStatus) => podStatus.phase === 'Running' && resolve());
    });

    lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] }); // from the pod sources
    lifecycle.setSourcesReady(); // every source delivered its first full set: orphans may now be killed
    await started; // the first sync started the pod

    const status = lifecycle.getPodStatus(pod.metadata.uid); // phase, conditions, container states
    const pods = lifecycle.getPods(); // the desired pods with their live status: what GET /pods serves

    controller.abort(); // stops every loop; running pods are left alone
    await running;
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));

    expect(runtime.latestContainer(pod.metadata.uid, 'app')?.state).toBe('running');
    expect(status?.hostIP).toBe('192.168.1.10');
    expect(status?.containerStatuses?.map((c) => c.name)).toEqual(['app']);
    expect(pods.map((p) => p.metadata.uid)).toEqual([pod.metadata.uid]);
    expect(pods[0]?.status).toBe(status);
    expect((await stat(join(rootDir, 'pods', pod.metadata.uid))).isDirectory()).toBe(true);
    expect(volumes.calls).toContainEqual({ method: 'waitForAttachAndMount', podUID: pod.metadata.uid });
    // Stopping the loop leaves the pod running.
    expect(runtime.callsOf('killPod')).toHaveLength(0);
  });

  it('runs the API-mode snippet, which is the README block verbatim: the static pod gets its mirror pod', async () => {
    const runtime = new FakeContainerRuntime();
    const getNodeIPs = (): string[] => ['192.168.1.10'];
    const mirrorPodApi = new FakeMirrorPodApi();
    const podApi = new FakePodStatusApi();
    const node = { metadata: { name: 'node-1', uid: 'node-uid' } };
    let deliver = (_pods: Pod[]): void => undefined;
    const apiSource = {
      onMirrorPods(listener: (pods: Pod[]) => void): () => void {
        deliver = listener;
        return () => undefined;
      },
    };
    const staticPod = makePod({
      name: 'etcd',
      namespace: 'kube-system',
      annotations: { [ConfigSourceAnnotationKey]: 'file', [ConfigHashAnnotationKey]: 'h1' },
    });

    // README:mirror-begin
    const mirrorPods = createMirrorPodManager({
      api: mirrorPodApi, // POST, GET and DELETE of pods, adapted from the kubelet's API client
      nodeName: 'node-1',
      getNode: () => node, // the node informer's Node: its UID owns the mirror pods
      staticPods: () => lifecycle.getPods(), // the desired pods; only the static ones count
    });
    const sink = createApiStatusSink({
      podApi,
      mirrorPods, // a static pod's status goes to its mirror pod
      podCouldHaveRunningContainers: (uid) => lifecycle.couldHaveRunningContainers(uid),
      podResourcesAreReclaimed: (uid) => lifecycle.podResourcesAreReclaimed(uid),
    });
    const statusManager = createStatusManager({ sink });
    const lifecycle = createPodLifecycle({ runtime, nodeName: 'node-1', getNodeIPs, statusManager });
    apiSource.onMirrorPods((pods) => mirrorPods.setMirrorPods(pods)); // the API pod source of @kubelet-ts/pod-sources

    const controller = new AbortController();
    const running = Promise.all([lifecycle.run(controller.signal), sink.run(controller.signal)]);
    lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [staticPod] });
    lifecycle.setSourcesReady();
    const mirroring = mirrorPods.run(controller.signal); // only now: a mirror pod without its static pod is deleted
    // README:mirror-end

    expect(readme).toContain(
      readmeSnippet(readFileSync(__filename, 'utf8'), { begin: '// README:mirror-begin', end: '// README:mirror-end' }),
    );

    await mirrorPods.reconcile(); // after the first pass, which run started at once
    const mirror = mirrorPodApi.pod('kube-system', 'etcd');
    expect(mirror?.metadata).toMatchObject({
      annotations: { [ConfigMirrorAnnotationKey]: 'h1' },
      ownerReferences: [{ kind: 'Node', name: 'node-1', uid: 'node-uid', controller: true }],
    });
    deliver(mirrorPodApi.mirrorPods());
    expect(mirrorPods.mirrorPodUIDOf(staticPod.metadata.uid)).toBe(mirror?.metadata.uid);
    expect(mirrorPods.translatePodUID(mirror?.metadata.uid ?? '')).toBe(staticPod.metadata.uid);

    controller.abort();
    await Promise.all([running, mirroring]);
  });
});
