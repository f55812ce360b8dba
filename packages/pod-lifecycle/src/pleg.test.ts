import { FakeClock, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import { createPodStatusCache } from './pod-cache.js';
import { createGenericPleg } from './pleg.js';
import type { PodLifecycleEvent } from './pleg.js';

function setup() {
  const clock = new FakeClock();
  const runtime = new FakeContainerRuntime({ clock });
  const cache = createPodStatusCache();
  const logger = new RecordingLogger();
  const pleg = createGenericPleg({ runtime, cache, clock, logger });
  const events: PodLifecycleEvent[] = [];
  pleg.watch((e) => events.push(e));
  const ref = { uid: 'u1', name: 'web', namespace: 'default' };
  return { clock, runtime, cache, logger, pleg, events, ref };
}

describe('generic PLEG', () => {
  it('sets kubelet_running_pods and kubelet_running_containers by state at each relist (upstream updateRunningPodAndContainerMetrics)', async () => {
    const clock = new FakeClock();
    const runtime = new FakeContainerRuntime({ clock });
    const metrics = new RecordingMetrics();
    const pleg = createGenericPleg({ runtime, cache: createPodStatusCache(), clock, metrics });
    const a = { uid: 'a', name: 'a', namespace: 'default' };
    const b = { uid: 'b', name: 'b', namespace: 'default' };
    runtime.addSandbox(a);
    const app = runtime.addContainer(a, 'app');
    runtime.addContainer(a, 'sidecar');
    runtime.addSandbox(b, { state: 'notready' });
    await pleg.relist();
    expect(metrics.value('kubelet_running_pods')).toBe(1);
    expect(metrics.value('kubelet_running_containers', { container_state: 'running' })).toBe(2);
    runtime.exitContainer(app.id, 0);
    await pleg.relist();
    expect(metrics.value('kubelet_running_containers', { container_state: 'running' })).toBe(1);
    expect(metrics.value('kubelet_running_containers', { container_state: 'exited' })).toBe(1);
    runtime.removePod('a');
    await pleg.relist();
    expect(metrics.value('kubelet_running_pods')).toBe(0);
    expect(metrics.value('kubelet_running_containers', { container_state: 'running' })).toBe(0);
    expect(metrics.value('kubelet_running_containers', { container_state: 'exited' })).toBe(0);
  });

  it('sets kubelet_pleg_last_seen_seconds to the last relist when its health is checked; never discards an event', async () => {
    const clock = new FakeClock(1_700_000_000_500);
    const runtime = new FakeContainerRuntime({ clock });
    const metrics = new RecordingMetrics();
    const pleg = createGenericPleg({ runtime, cache: createPodStatusCache(), clock, metrics });
    pleg.healthy();
    expect(metrics.value('kubelet_pleg_last_seen_seconds')).toBeUndefined();
    await pleg.relist();
    await clock.advance(30_000);
    runtime.setError('getPods', new Error('runtime down'));
    await pleg.relist();
    pleg.healthy();
    // Upstream Healthy: the last successful relist, in whole seconds.
    expect(metrics.value('kubelet_pleg_last_seen_seconds')).toBe(1_700_000_000);
    runtime.setError('getPods', undefined);
    await pleg.relist();
    pleg.healthy();
    expect(metrics.value('kubelet_pleg_last_seen_seconds')).toBe(1_700_000_030);
    expect(metrics.kind('kubelet_pleg_discard_events')).toBe('counter');
    expect(metrics.value('kubelet_pleg_discard_events')).toBeUndefined();
  });

  it('reports started sandboxes and containers and fills the cache', async () => {
    const { runtime, cache, pleg, events, ref } = setup();
    const sandbox = runtime.addSandbox(ref);
    const c = runtime.addContainer(ref, 'app');
    await pleg.relist();
    expect(events).toEqual(
      expect.arrayContaining([
        { id: 'u1', type: 'ContainerStarted', data: sandbox.id },
        { id: 'u1', type: 'ContainerStarted', data: c.id },
      ]),
    );
    expect(events).toHaveLength(2);
    expect(cache.get('u1').status.containers.map((x) => x.id)).toEqual([c.id]);
  });

  it('reads the statuses of many changed pods a few at a time (at most 8), filling every entry', async () => {
    const { runtime, cache, pleg, events } = setup();
    const refs = Array.from({ length: 20 }, (_, i) => ({ uid: `u${i}`, name: `web-${i}`, namespace: 'default' }));
    for (const ref of refs) {
      runtime.addSandbox(ref);
      runtime.addContainer(ref, 'app');
    }
    const read = runtime.getPodStatus.bind(runtime);
    let inFlight = 0;
    let most = 0;
    runtime.getPodStatus = async (uid, name, namespace) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return read(uid, name, namespace);
    };
    await pleg.relist();
    expect(most).toBe(8);
    expect(events).toHaveLength(40);
    for (const ref of refs) expect(cache.get(ref.uid).status.containers).toHaveLength(1);
  });

  it('does not read a status again when the cached one already shows what the relist saw, but reads once a state differs', async () => {
    const { runtime, cache, pleg, events, ref, clock } = setup();
    runtime.addSandbox(ref);
    const c = runtime.addContainer(ref, 'app');
    // The lifecycle's read right after the start, stored before the relist saw the pod.
    cache.set('u1', await runtime.getPodStatus('u1', 'web', 'default'), undefined, clock.now());
    const reads = () => runtime.callsOf('getPodStatus').length;
    const before = reads();
    await pleg.relist();
    expect(events.map((e) => e.type)).toEqual(['ContainerStarted', 'ContainerStarted']);
    expect(reads()).toBe(before);
    // The container exits: the cached status says running, so the relist reads it.
    runtime.exitContainer(c.id, 1);
    await clock.advance(1_000);
    await pleg.relist();
    expect(reads()).toBe(before + 1);
    expect(cache.get('u1').status.containers[0]?.state).toBe('exited');
    expect(events.at(-1)).toEqual({ id: 'u1', type: 'ContainerDied', data: c.id });
  });

  it('reports died, removed, and died+removed for a running container that vanished', async () => {
    const { runtime, pleg, events, ref } = setup();
    runtime.addSandbox(ref);
    const a = runtime.addContainer(ref, 'a');
    const b = runtime.addContainer(ref, 'b');
    await pleg.relist();
    events.length = 0;

    runtime.exitContainer(a.id, 1);
    await pleg.relist();
    expect(events).toEqual([{ id: 'u1', type: 'ContainerDied', data: a.id }]);
    events.length = 0;

    runtime.removeContainer(a.id);
    runtime.removeContainer(b.id);
    await pleg.relist();
    expect(events).toHaveLength(3);
    expect(events).toEqual(
      expect.arrayContaining([
        { id: 'u1', type: 'ContainerRemoved', data: a.id },
        { id: 'u1', type: 'ContainerDied', data: b.id },
        { id: 'u1', type: 'ContainerRemoved', data: b.id },
      ]),
    );
  });

  it('sends nothing when nothing changed, yet declares the cache current', async () => {
    const { clock, runtime, cache, pleg, events, ref } = setup();
    runtime.addSandbox(ref);
    await pleg.relist();
    events.length = 0;
    const syncedAt = clock.now();
    await clock.advance(1000);
    const waiting = cache.getNewerThan('u1', syncedAt);
    await pleg.relist();
    expect(events).toEqual([]);
    await expect(waiting).resolves.toMatchObject({ uid: 'u1' });
  });

  it('keeps ContainerChanged (created) to itself but refreshes the cache', async () => {
    const { runtime, cache, pleg, events, ref } = setup();
    runtime.addContainer(ref, 'app', { state: 'created' });
    await pleg.relist();
    expect(events).toEqual([]);
    expect(cache.get('u1').status.containers[0]?.state).toBe('created');
  });

  it('retries a pod whose status could not be read, and only then sends its events', async () => {
    const { runtime, cache, pleg, events, ref, logger } = setup();
    const c = runtime.addContainer(ref, 'app');
    runtime.failNext('getPodStatus', new Error('deadline exceeded'));
    await pleg.relist();
    expect(events).toEqual([]);
    expect(cache.get('u1').error?.message).toBe('deadline exceeded');
    expect(logger.find('PLEG: Ignoring events for pod')).toHaveLength(1);
    await pleg.relist();
    expect(events).toEqual([{ id: 'u1', type: 'ContainerStarted', data: c.id }]);
    expect(cache.get('u1').error).toBeUndefined();
  });

  it('drops the cache entry of a pod gone from the runtime', async () => {
    const { runtime, cache, pleg, ref } = setup();
    runtime.addContainer(ref, 'app');
    await pleg.relist();
    expect(cache.get('u1').modifiedAt).toBeGreaterThan(0);
    runtime.removePod('u1');
    await pleg.relist();
    expect(cache.get('u1').modifiedAt).toBe(0);
  });

  it('is unhealthy before the first relist and when the last success is older than the threshold', async () => {
    const { clock, runtime, pleg, logger } = setup();
    expect(pleg.healthy()).toEqual({ healthy: false, message: 'pleg has yet to be successful' });
    expect(() => pleg.healthChecker.check()).toThrow('pleg has yet to be successful');
    await pleg.relist();
    expect(pleg.healthChecker.name).toBe('pleg');
    expect(pleg.healthy()).toEqual({ healthy: true });
    expect(() => pleg.healthChecker.check()).not.toThrow();
    runtime.setError('getPods', new Error('runtime down'));
    await clock.advance(180_000);
    await pleg.relist();
    expect(pleg.healthy()).toEqual({ healthy: true });
    await clock.advance(1);
    expect(pleg.healthy()).toEqual({ healthy: false, message: 'pleg was last seen active 3m0.001s ago; threshold is 3m0s' });
    expect(() => pleg.healthChecker.check()).toThrow('pleg was last seen active 3m0.001s ago; threshold is 3m0s');
    expect(logger.find('GenericPLEG: Unable to retrieve pods').length).toBeGreaterThan(0);
    runtime.setError('getPods', undefined);
    await pleg.relist();
    expect(pleg.healthy()).toEqual({ healthy: true });
  });

  it('relists every period while running and stops when aborted', async () => {
    const { clock, runtime, pleg } = setup();
    const controller = new AbortController();
    const running = pleg.run(controller.signal);
    await clock.advance(3_500);
    expect(runtime.callsOf('getPods')).toHaveLength(4);
    expect(runtime.callsOf('getPods').every((c) => c.all)).toBe(true);
    controller.abort();
    await running;
    await clock.advance(10_000);
    expect(runtime.callsOf('getPods')).toHaveLength(4);
    expect(clock.pendingTimers).toBe(0);
  });

  it('update changes the period and threshold at once: a relist now, then one every new period (upstream Stop, Update, Start)', async () => {
    const { clock, runtime } = setup();
    const controller = new AbortController();
    const generic = createGenericPleg({
      runtime,
      cache: createPodStatusCache(),
      clock,
      relistPeriodMs: 300_000,
      relistThresholdMs: 600_000,
    });
    const done = generic.run(controller.signal);
    await clock.advance(10_000);
    expect(runtime.callsOf('getPods')).toHaveLength(1);
    generic.update({ relistPeriodMs: 1_000, relistThresholdMs: 180_000 });
    await clock.advance(0);
    expect(runtime.callsOf('getPods')).toHaveLength(2);
    await clock.advance(3_000);
    expect(runtime.callsOf('getPods')).toHaveLength(5);
    expect(generic.relistDuration).toEqual({ relistPeriodMs: 1_000, relistThresholdMs: 180_000 });
    controller.abort();
    await done;
  });
});
