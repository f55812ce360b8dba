// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import type { PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createApiStatusSink, createStatusManager } from './index.js';
import type { MirrorPodTranslator } from './index.js';
import { FakePodStatusApi } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', () => {
    const seen: string[] = [];
    const pod = newPod({ name: 'web', uid: 'uid-1' });
    const status: PodStatus = {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
        { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
      ],
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          started: true,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
          containerID: 'containerd://c-1',
          state: { running: {} },
        },
      ],
    };

    // README:begin
    const statusManager = createStatusManager(); // standalone: noopStatusSink
    statusManager.onStatusChange((pod, status) => seen.push(`${pod.metadata.name} ${status.phase}`));

    // What a pod sync generated (the pod lifecycle does this):
    statusManager.setPodStatus(pod, status, { fromSync: true });
    // A readiness probe succeeded: `ready` and the Ready/ContainersReady conditions change now.
    statusManager.setContainerReadiness(pod.metadata.uid, 'c-1', true);

    const current = statusManager.getPodStatus(pod.metadata.uid); // what GET /pods shows
    const { version } = statusManager.getVersionedPodStatus(pod.metadata.uid) ?? { version: 0 }; // 2
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(seen).toEqual(['web Running', 'web Running']);
    expect(current?.containerStatuses?.[0]?.ready).toBe(true);
    expect(current?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
    ]);
    expect(version).toBe(2);
  });

  it('runs the API-mode snippet, which is the README block verbatim', async () => {
    const podApi = new FakePodStatusApi();
    const pod = newPod({ name: 'web', uid: 'uid-1', spec: { nodeName: 'kts-node' } });
    podApi.put(pod);
    const podWorkers = { couldHaveRunningContainers: (_uid: string) => false };
    const lifecycle = { podResourcesAreReclaimed: (_uid: string) => true };
    const podInformer = { get: (key: string): unknown => podApi.pods.get(key) };
    const mirrorPods: MirrorPodTranslator = { mirrorPodUIDOf: () => undefined, translatePodUID: (uid) => uid };
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const metrics = new RecordingMetrics();
    const controller = new AbortController();
    const signal = controller.signal;

    // README:begin
    const sink = createApiStatusSink({
      podApi, // PodStatusApi: get, patchStatus (strategic merge), delete (grace 0 + UID precondition)
      podCouldHaveRunningContainers: (uid) => podWorkers.couldHaveRunningContainers(uid),
      podResourcesAreReclaimed: (uid) => lifecycle.podResourcesAreReclaimed(uid),
      podLister: podInformer, // `get("<ns>/<name>")`: the 10 s reconciliation compares the API copy
      mirrorPods, // MirrorPodTranslator: static pod UID ↔ mirror pod UID
      clock,
      logger,
      metrics,
    });
    const statusManager = createStatusManager({ sink, clock, logger });
    void sink.run(signal); // a Runnable of the kubelet's supervisor
    // README:end

    expect(readme).toContain(
      readmeSnippet(readFileSync(__filename, 'utf8').slice(readFileSync(__filename, 'utf8').indexOf('API-mode snippet'))),
    );
    statusManager.setPodStatus(pod, { phase: 'Running', qosClass: 'BestEffort' });
    await sink.whenIdle();
    expect(podApi.pod('default', 'web')?.status?.phase).toBe('Running');
    controller.abort();
  });
});
