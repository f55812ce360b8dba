import type { Pod } from '@kubelet-ts/api';
import { createBackoff } from '@kubelet-ts/common';
import { FakeClock } from '@kubelet-ts/common/testing';
import { FakeContainerRuntime } from './fake-container-runtime.js';

function makePod(overrides: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: {
      containers: [
        { name: 'app', image: 'busybox' },
        { name: 'side', image: 'busybox' },
      ],
      ...overrides,
    },
  };
}

describe('FakeContainerRuntime', () => {
  const clock = new FakeClock();
  const backoff = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock });

  it('default syncPod creates a sandbox and starts every container, then is idempotent', async () => {
    const rt = new FakeContainerRuntime({ clock });
    const pod = makePod();
    const first = await rt.syncPod(pod, rt.snapshot('uid-1'), backoff);
    expect(first.results.map((r) => `${r.action}:${r.target}`)).toEqual([
      'CreatePodSandbox:web_default',
      'StartContainer:app',
      'StartContainer:side',
    ]);
    const status = await rt.getPodStatus('uid-1', 'web', 'default');
    expect(status.sandboxes).toHaveLength(1);
    expect(status.ips).toEqual([status.sandboxes[0]?.ip]);
    expect(status.containers.map((c) => [c.name, c.state, c.restartCount]).sort()).toEqual([
      ['app', 'running', 0],
      ['side', 'running', 0],
    ]);
    const second = await rt.syncPod(pod, status, backoff);
    expect(second.results).toEqual([]);
  });

  it('restarts an exited container with restartCount + 1 unless restartPolicy forbids it', async () => {
    const rt = new FakeContainerRuntime({ clock });
    const pod = makePod();
    await rt.syncPod(pod, rt.snapshot('uid-1'), backoff);
    const app = rt.latestContainer('uid-1', 'app');
    rt.exitContainer(app?.id ?? '', 1);
    await clock.advance(1000);
    await rt.syncPod(pod, rt.snapshot('uid-1'), backoff);
    expect(rt.latestContainer('uid-1', 'app')).toMatchObject({ state: 'running', restartCount: 1 });

    const never = new FakeContainerRuntime({ clock });
    const neverPod = makePod({ restartPolicy: 'Never' });
    await never.syncPod(neverPod, never.snapshot('uid-1'), backoff);
    never.exitContainer(never.latestContainer('uid-1', 'app')?.id ?? '', 1);
    const result = await never.syncPod(neverPod, never.snapshot('uid-1'), backoff);
    expect(result.results).toEqual([]);
    expect(never.latestContainer('uid-1', 'app')).toMatchObject({ state: 'exited', exitCode: 1 });
  });

  it('runs init containers to completion before regular containers and keeps sidecars running', async () => {
    const rt = new FakeContainerRuntime({ clock });
    const pod = makePod({
      initContainers: [
        { name: 'init', image: 'busybox' },
        { name: 'sidecar', image: 'busybox', restartPolicy: 'Always' },
      ],
    });
    const result = await rt.syncPod(pod, rt.snapshot('uid-1'), backoff);
    expect(result.results.map((r) => `${r.action}:${r.target}`)).toEqual([
      'CreatePodSandbox:web_default',
      'InitContainer:init',
      'StartContainer:sidecar',
      'StartContainer:app',
      'StartContainer:side',
    ]);
    expect(rt.latestContainer('uid-1', 'init')).toMatchObject({ state: 'exited', exitCode: 0 });
    expect(rt.latestContainer('uid-1', 'sidecar')?.state).toBe('running');
  });

  it('records calls, injects errors once or persistently, and scripts syncPod', async () => {
    const rt = new FakeContainerRuntime({ clock });
    rt.failNext('getPods', new Error('boom'));
    await expect(rt.getPods(true)).rejects.toThrow('boom');
    await expect(rt.getPods(true)).resolves.toEqual([]);
    rt.setError('status', new Error('down'));
    await expect(rt.status()).rejects.toThrow('down');
    rt.setError('status', undefined);
    await expect(rt.status()).resolves.toHaveLength(2);
    rt.onSyncPod = () => ({
      results: [{ action: 'StartContainer', target: 'app', reason: 'ErrImagePull', message: 'nope' }],
      error: new Error('nope'),
    });
    const result = await rt.syncPod(makePod(), rt.snapshot('uid-1'), backoff);
    expect(result.results[0]?.reason).toBe('ErrImagePull');
    expect(rt.calls.map((c) => c.method)).toEqual(['getPods', 'getPods', 'status', 'status', 'syncPod']);
    expect(rt.callsOf('getPods').map((c) => c.all)).toEqual([true, true]);
  });

  it('killPod stops containers and sandboxes; getPods(false) then lists nothing; GC drops deleted pods', async () => {
    const rt = new FakeContainerRuntime({ clock });
    const pod = makePod();
    await rt.syncPod(pod, rt.snapshot('uid-1'), backoff);
    const [running] = await rt.getPods(false);
    expect(running?.containers).toHaveLength(2);
    await rt.killPod(pod, running ?? { uid: '', name: '', namespace: '', sandboxes: [], containers: [] }, 5);
    expect(rt.callsOf('killPod')[0]?.gracePeriodOverrideSeconds).toBe(5);
    expect(await rt.getPods(false)).toEqual([]);
    const all = await rt.getPods(true);
    expect(all[0]?.containers.every((c) => c.state === 'exited')).toBe(true);
    await rt.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, () => false);
    expect(rt.pods.has('uid-1')).toBe(true);
    await rt.garbageCollect({ minAgeMs: 0, maxPerPodContainer: 1, maxContainers: -1 }, true, () => true);
    expect(rt.pods.has('uid-1')).toBe(false);
  });

  it('optionally applies CrashLoopBackOff like the real manager, and records spec hashes', async () => {
    const clock2 = new FakeClock();
    const bo = createBackoff({ initialMs: 10_000, maxMs: 300_000, clock: clock2 });
    const rt = new FakeContainerRuntime({ clock: clock2, crashLoopBackoff: true });
    const pod = makePod({ containers: [{ name: 'app', image: 'busybox' }] });
    await rt.syncPod(pod, rt.snapshot('uid-1'), bo);
    expect(rt.latestContainer('uid-1', 'app')?.hash).toMatch(/^[0-9a-f]+$/);
    rt.exitContainer(rt.latestContainer('uid-1', 'app')?.id ?? '', 1);
    await rt.syncPod(pod, rt.snapshot('uid-1'), bo); // first restart: no back-off yet
    rt.exitContainer(rt.latestContainer('uid-1', 'app')?.id ?? '', 1);
    const result = await rt.syncPod(pod, rt.snapshot('uid-1'), bo);
    expect(result.results).toEqual([
      {
        action: 'StartContainer',
        target: 'app',
        reason: 'CrashLoopBackOff',
        message: 'back-off 10s restarting failed container=app pod=web_default(uid-1)',
      },
    ]);
    expect(result.error).toBeInstanceOf(Error);
    await clock2.advance(10_000);
    expect((await rt.syncPod(pod, rt.snapshot('uid-1'), bo)).results).toEqual([{ action: 'StartContainer', target: 'app' }]);
    expect(rt.latestContainer('uid-1', 'app')?.restartCount).toBe(2);
  });
});
