import type { ContainerStatus, Pod, PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createStatusManager } from './status-manager.js';
import { FakeStatusSink } from './testing/index.js';

const T0 = '2026-01-01T00:00:00Z';

function setup() {
  const clock = new FakeClock();
  const sink = new FakeStatusSink();
  const logger = new RecordingLogger();
  const manager = createStatusManager({ sink, clock, logger });
  return { clock, sink, logger, manager };
}

function running(name: string, id: string, ready: boolean, started = true): ContainerStatus {
  return {
    name,
    ready,
    started,
    restartCount: 0,
    image: 'busybox',
    imageID: '',
    containerID: `containerd://${id}`,
    state: { running: { startedAt: T0 } },
  };
}

/** A Running pod of two containers, `app` not ready yet. */
function runningStatus(): PodStatus {
  return {
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: T0 },
      {
        type: 'Ready',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [app]',
        lastTransitionTime: T0,
      },
      {
        type: 'ContainersReady',
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [app]',
        lastTransitionTime: T0,
      },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: T0 },
    ],
    containerStatuses: [running('app', 'c-app', false), running('side', 'c-side', true)],
  };
}

const twoContainers = (): Pod => newPod({ name: 'web', uid: 'uid-web', containers: [{ name: 'app' }, { name: 'side' }] });

describe('status manager: set and get', () => {
  it('stores a status, versions each change, and tells listeners and the sink only of changes', () => {
    const { manager, sink } = setup();
    const pod = twoContainers();
    const heard: string[] = [];
    manager.onStatusChange((_p, s) => heard.push(s.phase ?? ''));
    manager.setPodStatus(pod, { phase: 'Pending' });
    manager.setPodStatus(pod, { phase: 'Pending' });
    manager.setPodStatus(pod, { phase: 'Running' });
    expect(manager.getPodStatus('uid-web')).toEqual({ phase: 'Running' });
    expect(manager.getVersionedPodStatus('uid-web')).toMatchObject({
      uid: 'uid-web',
      name: 'web',
      namespace: 'default',
      version: 2,
      podIsFinished: false,
    });
    expect(heard).toEqual(['Pending', 'Running']);
    expect(sink.versionsOf('uid-web')).toEqual([1, 2]);
    expect(manager.getPodStatus('other')).toBeUndefined();
  });

  it('lets an everySync listener hear unchanged statuses from a sync, and nothing else unchanged', () => {
    const { manager } = setup();
    const pod = twoContainers();
    const changes: string[] = [];
    const syncs: string[] = [];
    manager.onStatusChange((_p, s) => changes.push(s.phase ?? ''));
    const stop = manager.onStatusChange((_p, s) => syncs.push(s.phase ?? ''), { everySync: true });
    manager.setPodStatus(pod, { phase: 'Running' }, { fromSync: true });
    manager.setPodStatus(pod, { phase: 'Running' }, { fromSync: true });
    manager.setPodStatus(pod, { phase: 'Running' });
    expect(changes).toEqual(['Running']);
    expect(syncs).toEqual(['Running', 'Running']);
    stop();
    manager.setPodStatus(pod, { phase: 'Failed' }, { fromSync: true });
    expect(syncs).toHaveLength(2);
  });

  it('survives a failing listener and a failing sink, logging both', () => {
    const { manager, sink, logger } = setup();
    const heard: string[] = [];
    manager.onStatusChange(() => {
      throw new Error('listener broke');
    });
    manager.onStatusChange((_p, s) => heard.push(s.phase ?? ''));
    sink.error = new Error('api down');
    manager.setPodStatus(twoContainers(), { phase: 'Running' });
    expect(heard).toEqual(['Running']);
    expect(manager.getPodStatus('uid-web')?.phase).toBe('Running');
    expect(logger.find('Pod status listener failed')[0]?.fields).toMatchObject({ pod: 'default/web', err: 'listener broke' });
    expect(logger.find('Pod status sink failed')[0]?.fields.err).toBe('api down');
  });
});

describe('status manager: readiness and startup', () => {
  it('sets one container ready and regenerates Ready and ContainersReady with a new transition time', async () => {
    const { manager, clock, sink } = setup();
    const pod = twoContainers();
    manager.setPodStatus(pod, runningStatus());
    await clock.advance(5_000);
    manager.setContainerReadiness('uid-web', 'c-app', true);
    const status = manager.getPodStatus('uid-web');
    expect(status?.containerStatuses?.map((c) => [c.name, c.ready])).toEqual([
      ['app', true],
      ['side', true],
    ]);
    expect(status?.conditions).toEqual([
      { type: 'Initialized', status: 'True', lastTransitionTime: T0 },
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: T0 },
    ]);
    expect(sink.versionsOf('uid-web')).toEqual([1, 2]);
  });

  it('keeps the transition time of a condition whose status did not change, and the stored status untouched', async () => {
    const { manager, clock } = setup();
    const pod = twoContainers();
    const initial = runningStatus();
    manager.setPodStatus(pod, initial);
    await clock.advance(5_000);
    // side turns unready: Ready stays False (now naming both), so its time stays.
    manager.setContainerReadiness('uid-web', 'containerd://c-side', false);
    const ready = manager.getPodStatus('uid-web')?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app side]',
      lastTransitionTime: T0,
    });
    expect(initial.containerStatuses?.[1]?.ready).toBe(true);
  });

  it('ignores a readiness that is unchanged, of an unknown pod, or of a container the status does not show', () => {
    const { manager, sink } = setup();
    manager.setPodStatus(twoContainers(), runningStatus());
    manager.setContainerReadiness('uid-web', 'c-side', true);
    manager.setContainerReadiness('uid-web', 'c-gone', true);
    manager.setContainerReadiness('uid-other', 'c-app', true);
    manager.setContainerStartup('uid-web', '', true);
    expect(sink.versionsOf('uid-web')).toEqual([1]);
    expect(sink.calls).toHaveLength(1);
  });

  it('sets a container started and nothing else', () => {
    const { manager } = setup();
    const status = runningStatus();
    status.containerStatuses = [running('app', 'c-app', false, false), running('side', 'c-side', true)];
    manager.setPodStatus(twoContainers(), status);
    manager.setContainerStartup('uid-web', 'c-app', true);
    const after = manager.getPodStatus('uid-web');
    expect(after?.containerStatuses?.[0]).toMatchObject({ name: 'app', started: true, ready: false });
    expect(after?.conditions).toEqual(status.conditions);
  });
});

describe('status manager: terminatePod', () => {
  it('reports every container that is not terminated as terminated with ContainerStatusUnknown, and the pod Failed and finished', () => {
    const { manager, sink } = setup();
    const pod = twoContainers();
    const status = runningStatus();
    status.containerStatuses = [
      {
        name: 'app',
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
        state: { terminated: { exitCode: 0, reason: 'Completed' } },
      },
      running('side', 'c-side', true),
    ];
    manager.setPodStatus(pod, status);
    manager.terminatePod(pod);
    const after = manager.getPodStatus('uid-web');
    expect(after?.phase).toBe('Failed');
    expect(after?.containerStatuses?.map((c) => c.state)).toEqual([
      { terminated: { exitCode: 0, reason: 'Completed' } },
      {
        terminated: {
          exitCode: 137,
          reason: 'ContainerStatusUnknown',
          message: 'The container could not be located when the pod was terminated',
        },
      },
    ]);
    expect(manager.getVersionedPodStatus('uid-web')).toMatchObject({ version: 2, podIsFinished: true });
    expect(sink.latest.get('uid-web')?.podIsFinished).toBe(true);
  });

  it('keeps a terminal phase, and leaves the phase of a static pod alone', () => {
    const { manager } = setup();
    const done = newPod({ name: 'done', uid: 'uid-done' });
    manager.setPodStatus(done, { phase: 'Succeeded', containerStatuses: [] });
    manager.terminatePod(done);
    expect(manager.getPodStatus('uid-done')?.phase).toBe('Succeeded');
    const staticPod = newPod({ name: 'static', uid: 'uid-static', annotations: { 'kubernetes.io/config.source': 'file' } });
    manager.setPodStatus(staticPod, { phase: 'Running' });
    manager.terminatePod(staticPod);
    expect(manager.getPodStatus('uid-static')?.phase).toBe('Running');
    expect(manager.getVersionedPodStatus('uid-static')?.podIsFinished).toBe(true);
  });

  it('before the pod initialized: regular containers stay waiting, only init containers that tried to start are failed', () => {
    const { manager } = setup();
    const pod = newPod({ name: 'init', uid: 'uid-init', initContainers: [{ name: 'one' }, { name: 'two' }] });
    const waiting = (name: string): ContainerStatus => ({
      name,
      ready: false,
      restartCount: 0,
      image: 'busybox',
      imageID: '',
      state: { waiting: { reason: 'PodInitializing' } },
    });
    manager.setPodStatus(pod, {
      phase: 'Pending',
      initContainerStatuses: [{ ...waiting('one'), state: { running: {} } }, waiting('two')],
      containerStatuses: [waiting('app')],
    });
    manager.terminatePod(pod);
    const after = manager.getPodStatus('uid-init');
    expect(after?.containerStatuses?.[0]?.state).toEqual({ waiting: { reason: 'PodInitializing' } });
    expect(after?.initContainerStatuses?.map((c) => Object.keys(c.state ?? {})[0])).toEqual(['terminated', 'waiting']);
    expect(after?.phase).toBe('Failed');
  });
});

describe('status manager: forgetting', () => {
  it('removes orphaned statuses, returns their UIDs and tells the sink; deletePodStatus forgets one at once', () => {
    const { manager, sink } = setup();
    for (const name of ['a', 'b', 'c']) manager.setPodStatus(newPod({ name, uid: `uid-${name}` }), { phase: 'Running' });
    expect(manager.removeOrphanedStatuses((uid) => uid === 'uid-b')).toEqual(['uid-a', 'uid-c']);
    expect(manager.getPodStatus('uid-a')).toBeUndefined();
    expect(manager.getPodStatus('uid-b')?.phase).toBe('Running');
    manager.deletePodStatus('uid-b');
    manager.deletePodStatus('uid-b');
    expect(manager.getPodStatus('uid-b')).toBeUndefined();
    expect(sink.calls.filter((c) => c.method === 'statusRemoved')).toEqual([
      { method: 'statusRemoved', uid: 'uid-a' },
      { method: 'statusRemoved', uid: 'uid-c' },
      { method: 'statusRemoved', uid: 'uid-b' },
    ]);
    expect([...sink.latest.keys()]).toEqual([]);
    // A UID set again starts over at version 1.
    manager.setPodStatus(newPod({ name: 'a', uid: 'uid-a' }), { phase: 'Pending' });
    expect(manager.getVersionedPodStatus('uid-a')?.version).toBe(1);
  });
});
