import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { FakeClock, flushMicrotasks, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { FakeContainerRuntime } from '@kubelet-ts/container-runtime/testing';
import { createEventedPleg, EVENTED_PLEG_RELIST_DURATION } from './evented-pleg.js';
import type { ContainerEventType, RuntimeContainerEvent } from './evented-pleg.js';
import { createPodStatusCache } from './pod-cache.js';
import { createGenericPleg } from './pleg.js';
import type { PodLifecycleEvent } from './pleg.js';
import { createPodLifecycleForTest, FakeContainerEventSource, makePod } from './testing/index.js';

const ref = { uid: 'u1', name: 'web', namespace: 'default' };

function setup() {
  const clock = new FakeClock();
  const runtime = new FakeContainerRuntime({ clock });
  const cache = createPodStatusCache();
  const logger = new RecordingLogger();
  const metrics = new RecordingMetrics();
  const source = new FakeContainerEventSource();
  const genericPleg = createGenericPleg({ runtime, cache, clock, metrics, ...EVENTED_PLEG_RELIST_DURATION });
  const pleg = createEventedPleg({ source, genericPleg, cache, clock, logger, metrics });
  const events: PodLifecycleEvent[] = [];
  pleg.watch((e) => events.push(e));
  const controller = new AbortController();
  let done: Promise<void> | undefined;
  const start = async (): Promise<void> => {
    done = pleg.run(controller.signal);
    await flushMicrotasks();
  };
  const stop = async (): Promise<void> => {
    controller.abort();
    await done;
  };
  const event = (type: ContainerEventType, containerId: string, podStatus: RuntimePodStatus | undefined): RuntimeContainerEvent => ({
    type,
    containerId,
    createdAt: clock.now(),
    podStatus,
  });
  const relists = (): number => runtime.callsOf('getPods').length;
  return { clock, runtime, cache, logger, metrics, source, genericPleg, pleg, events, start, stop, event, relists };
}

type Harness = ReturnType<typeof setup>;
let h: Harness;
beforeEach(() => {
  h = setup();
});
afterEach(async () => {
  await h.stop();
});

describe('evented PLEG', () => {
  it('turns started, stopped and deleted container events into PLEG events (a creation into none), as upstream', async () => {
    await h.start();
    const sandbox = h.runtime.addSandbox(ref);
    const created = h.runtime.addContainer(ref, 'app', { state: 'created' });
    h.source.send(h.event('CONTAINER_CREATED_EVENT', created.id, h.runtime.snapshot('u1', 'web', 'default')));
    h.runtime.setContainerState(created.id, 'running');
    h.source.send(h.event('CONTAINER_STARTED_EVENT', created.id, h.runtime.snapshot('u1', 'web', 'default')));
    h.runtime.exitContainer(created.id, 1);
    h.source.send(h.event('CONTAINER_STOPPED_EVENT', created.id, h.runtime.snapshot('u1', 'web', 'default')));
    h.runtime.removeContainer(created.id);
    h.source.send(h.event('CONTAINER_DELETED_EVENT', created.id, h.runtime.snapshot('u1', 'web', 'default')));
    await flushMicrotasks();
    expect(h.events).toEqual([
      { id: 'u1', type: 'ContainerStarted', data: created.id },
      { id: 'u1', type: 'ContainerDied', data: created.id },
      { id: 'u1', type: 'ContainerDied', data: created.id },
      { id: 'u1', type: 'ContainerRemoved', data: created.id },
    ]);
    // A container's removal leaves the cache alone; the pod is still there (its sandbox).
    expect(h.cache.get('u1').status.sandboxes.map((s) => s.id)).toEqual([sandbox.id]);
  });

  it("puts the event's statuses in the cache at the event's time, which wakes a pod worker waiting for a newer status", async () => {
    await h.start();
    h.runtime.addSandbox(ref);
    const app = h.runtime.addContainer(ref, 'app');
    const syncedAt = h.clock.now();
    const newer = h.cache.getNewerThan('u1', syncedAt);
    await h.clock.advance(200);
    h.runtime.exitContainer(app.id, 2);
    const stopped = h.event('CONTAINER_STOPPED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default'));
    h.source.send(stopped);
    const status = await newer;
    expect(status.containers[0]).toMatchObject({ id: app.id, state: 'exited', exitCode: 2 });
    expect(h.cache.get('u1').modifiedAt).toBe(stopped.createdAt);
    // No relist was needed for it: only the generic PLEG's first one ran.
    expect(h.relists()).toBe(1);
  });

  it('never writes over a status newer than the event, and sends no event then (upstream cache.Set with EventedPLEG)', async () => {
    await h.start();
    h.runtime.addSandbox(ref);
    const app = h.runtime.addContainer(ref, 'app');
    const old = h.event('CONTAINER_STARTED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default'));
    await h.clock.advance(100);
    h.runtime.exitContainer(app.id, 0);
    h.cache.set('u1', h.runtime.snapshot('u1', 'web', 'default'), undefined, h.clock.now());
    h.source.send(old);
    await flushMicrotasks();
    expect(h.events).toEqual([]);
    expect(h.cache.get('u1').status.containers[0]?.state).toBe('exited');
  });

  it('relists at once when a refused event shows its container further along than the newer cached status (an exit during a read)', async () => {
    await h.start();
    h.runtime.addSandbox(ref);
    const app = h.runtime.addContainer(ref, 'app');
    const runningView = h.runtime.snapshot('u1', 'web', 'default');
    await h.clock.advance(10);
    h.runtime.exitContainer(app.id, 1);
    const stopped = h.event('CONTAINER_STOPPED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default'));
    // A read that began before the exit but was stamped after it (the lifecycle's refresh after a start).
    await h.clock.advance(10);
    h.cache.set('u1', runningView, undefined, h.clock.now());
    const relists = h.relists();
    h.source.send(stopped);
    await flushMicrotasks();
    expect(h.relists()).toBe(relists + 1);
    expect(h.cache.get('u1').status.containers[0]).toMatchObject({ id: app.id, state: 'exited' });
    expect(h.events).toContainEqual({ id: 'u1', type: 'ContainerDied', data: app.id });
  });

  it("drops the pod's cache entry when its sandbox is deleted", async () => {
    await h.start();
    const sandbox = h.runtime.addSandbox(ref);
    h.source.send(h.event('CONTAINER_STARTED_EVENT', sandbox.id, h.runtime.snapshot('u1', 'web', 'default')));
    await flushMicrotasks();
    expect(h.cache.get('u1').modifiedAt).toBeGreaterThan(0);
    h.source.send(h.event('CONTAINER_DELETED_EVENT', sandbox.id, h.runtime.snapshot('u1', 'web', 'default')));
    await flushMicrotasks();
    expect(h.cache.get('u1').modifiedAt).toBe(0);
    expect(h.events.slice(-2)).toEqual([
      { id: 'u1', type: 'ContainerDied', data: sandbox.id },
      { id: 'u1', type: 'ContainerRemoved', data: sandbox.id },
    ]);
  });

  it('keeps the IPs of a pod whose sandbox stopped (upstream getPodIPs)', async () => {
    await h.start();
    const sandbox = h.runtime.addSandbox(ref, { ip: '10.0.0.7' });
    const app = h.runtime.addContainer(ref, 'app');
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default')));
    await h.clock.advance(10);
    h.runtime.exitContainer(app.id, 0);
    const stopped = h.runtime.snapshot('u1', 'web', 'default');
    stopped.sandboxes = stopped.sandboxes.map((s) => ({ ...s, state: 'notready' as const }));
    stopped.ips = [];
    h.source.send(h.event('CONTAINER_STOPPED_EVENT', app.id, stopped));
    await flushMicrotasks();
    expect(h.cache.get('u1').status.ips).toEqual(['10.0.0.7']);
    expect(h.cache.get('u1').status.sandboxes[0]).toMatchObject({ id: sandbox.id, state: 'notready' });
  });

  it('logs and skips what it cannot read from the stream, and goes on with the next event', async () => {
    await h.start();
    h.runtime.addSandbox(ref);
    const app = h.runtime.addContainer(ref, 'app');
    const good = h.runtime.snapshot('u1', 'web', 'default');
    h.source.send('garbage');
    h.source.send(null);
    h.source.send({ ...h.event('CONTAINER_STARTED_EVENT', app.id, good), type: 'CONTAINER_EXPLODED_EVENT' });
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, undefined));
    h.source.send(h.event('CONTAINER_STARTED_EVENT', '', good));
    h.source.send({ ...h.event('CONTAINER_STARTED_EVENT', app.id, good), createdAt: 'yesterday' });
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, { ...good, uid: '' }));
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, { ...good, containers: [{ id: app.id }] } as unknown as RuntimePodStatus));
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, { ...good, sandboxes: 'none' } as unknown as RuntimePodStatus));
    h.source.send(h.event('CONTAINER_STARTED_EVENT', app.id, good));
    await flushMicrotasks();
    expect(h.events).toEqual([{ id: 'u1', type: 'ContainerStarted', data: app.id }]);
    const skipped = h.logger.records.filter((r) => r.msg === 'Evented PLEG: ignoring a container event');
    expect(skipped.map((r) => r.fields?.['reason'])).toEqual([
      'not an object',
      'not an object',
      'unknown event type "CONTAINER_EXPLODED_EVENT"',
      'no PodSandboxStatus or PodSandboxStatus.Metadata',
      'no containerId',
      'no createdAt',
      'no pod UID',
      'malformed container status',
      'malformed sandbox status',
    ]);
    expect(h.source.opened).toBe(1);
    expect(h.pleg.inUse).toBe(true);
  });

  it('a listener that throws neither stops the stream nor keeps the event from the other listeners', async () => {
    const seen: PodLifecycleEvent[] = [];
    h.pleg.watch(() => {
      throw new Error('boom');
    });
    h.pleg.watch((e) => seen.push(e));
    await h.start();
    const sandbox = h.runtime.addSandbox(ref);
    h.source.send(h.event('CONTAINER_STARTED_EVENT', sandbox.id, h.runtime.snapshot('u1', 'web', 'default')));
    h.source.send(h.event('CONTAINER_STARTED_EVENT', sandbox.id, h.runtime.snapshot('u1', 'web', 'default')));
    await flushMicrotasks();
    expect(seen).toHaveLength(2);
    expect(h.source.isOpen).toBe(true);
  });

  it('relists the generic PLEG only every 300 s while events flow, and keeps the cache current every 5 s', async () => {
    await h.start();
    expect(h.relists()).toBe(1);
    await h.clock.advance(299_000);
    expect(h.relists()).toBe(1);
    expect(h.cache.globalTimestamp).toBe(h.clock.now() - 4_000);
    await h.clock.advance(1_000);
    expect(h.relists()).toBe(2);
  });

  it('retries a failed stream with a relist each time, and after 5 failures falls back to the generic PLEG every second', async () => {
    await h.start();
    const first = h.relists();
    // A stream that worked for a while, then broke; one that the runtime closed; then three that fail at once.
    h.source.breakStream();
    await h.source.whenOpen();
    h.source.endStream();
    await h.source.whenOpen();
    h.source.failOpens(3);
    h.source.breakStream();
    await flushMicrotasks();
    expect(h.source.opened).toBe(5);
    expect(h.pleg.inUse).toBe(false);
    expect(h.metrics.value('kubelet_evented_pleg_connection_success_count')).toBe(5);
    expect(h.metrics.value('kubelet_evented_pleg_connection_error_count')).toBe(5);
    // A relist after each failure (the fall-back's own included), then one every second.
    expect(h.relists()).toBeGreaterThanOrEqual(first + 5);
    expect(h.genericPleg.relistDuration).toEqual({ relistPeriodMs: 1_000, relistThresholdMs: 180_000 });
    const before = h.relists();
    await h.clock.advance(10_000);
    expect(h.relists() - before).toBe(10);
    // The stream is not tried again, and nothing keeps declaring the cache current any more.
    expect(h.source.opened).toBe(5);
    const stamp = h.cache.globalTimestamp;
    h.runtime.setError('getPods', new Error('runtime down'));
    await h.clock.advance(20_000);
    expect(h.cache.globalTimestamp).toBe(stamp);
  });

  it('on a runtime without GetContainerEvents (UNIMPLEMENTED at once) it falls back right at the start', async () => {
    h.source.failOpens(Infinity, new Error('UNIMPLEMENTED: unknown method GetContainerEvents'));
    await h.start();
    expect(h.pleg.inUse).toBe(false);
    expect(h.source.opened).toBe(5);
    expect(h.logger.records.filter((r) => r.msg === 'Evented PLEG: Failed to get container events, retrying')).toHaveLength(5);
    expect(h.logger.records.some((r) => r.msg === 'Fall back to Generic PLEG relisting since Evented PLEG is not working')).toBe(true);
    const before = h.relists();
    await h.clock.advance(3_000);
    expect(h.relists() - before).toBe(3);
  });

  it('is healthy as the generic PLEG is: 10 min threshold while events are in use, 3 min after the fall-back', async () => {
    expect(h.pleg.healthy()).toEqual({ healthy: false, message: 'pleg has yet to be successful' });
    await h.start();
    expect(h.pleg.healthy()).toEqual({ healthy: true });
    h.runtime.setError('getPods', new Error('runtime down'));
    await h.clock.advance(9 * 60_000);
    expect(h.pleg.healthy()).toEqual({ healthy: true });
    // Upstream's EventedPLEG check: last seen now, whatever the relists.
    expect(h.metrics.value('kubelet_pleg_last_seen_seconds')).toBe(Math.floor(h.clock.now() / 1000));
    await h.clock.advance(2 * 60_000);
    expect(h.pleg.healthy()).toEqual({ healthy: false, message: 'pleg was last seen active 11m0s ago; threshold is 10m0s' });
    expect(() => h.pleg.healthChecker.check()).toThrow('threshold is 10m0s');

    h.runtime.setError('getPods', undefined);
    h.source.failOpens(Infinity);
    h.source.breakStream();
    await flushMicrotasks();
    expect(h.pleg.inUse).toBe(false);
    expect(h.pleg.healthy()).toEqual({ healthy: true });
    h.runtime.setError('getPods', new Error('runtime down'));
    await h.clock.advance(4 * 60_000);
    expect(h.pleg.healthy()).toMatchObject({ healthy: false, message: expect.stringContaining('threshold is 3m0s') });
  });

  it('moves kubelet_running_pods and kubelet_running_containers with each event, and measures the event latency', async () => {
    await h.start();
    h.runtime.addSandbox(ref);
    const app = h.runtime.addContainer(ref, 'app');
    const started = h.event('CONTAINER_STARTED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default'));
    await h.clock.advance(250);
    h.source.send(started);
    await flushMicrotasks();
    expect(h.metrics.value('kubelet_running_pods')).toBe(1);
    expect(h.metrics.value('kubelet_running_containers', { container_state: 'running' })).toBe(1);
    expect(h.metrics.observations('kubelet_evented_pleg_connection_latency_seconds')).toEqual([0.25]);
    h.runtime.exitContainer(app.id, 0);
    h.source.send(h.event('CONTAINER_STOPPED_EVENT', app.id, h.runtime.snapshot('u1', 'web', 'default')));
    await flushMicrotasks();
    expect(h.metrics.value('kubelet_running_containers', { container_state: 'running' })).toBe(0);
    expect(h.metrics.value('kubelet_running_containers', { container_state: 'exited' })).toBe(1);
  });

  it('stops cleanly when its signal aborts, the generic PLEG with it', async () => {
    await h.start();
    expect(h.source.isOpen).toBe(true);
    await h.stop();
    expect(h.source.isOpen).toBe(false);
    expect(h.clock.pendingTimers).toBe(0);
    expect(h.metrics.value('kubelet_evented_pleg_connection_error_count') ?? 0).toBe(0);
  });
});

describe('pod lifecycle with container events', () => {
  it('restarts an exited container on its stopped event, with no relist in between; without events it would wait for the 300 s relist', async () => {
    const clock = new FakeClock();
    const runtime = new FakeContainerRuntime({ clock });
    const source = new FakeContainerEventSource();
    const composed = createPodLifecycleForTest({
      runtime,
      clock,
      nodeName: 'node-1',
      getNodeIPs: () => ['192.168.1.10'],
      random: () => 0.5,
      containerEvents: source,
    });
    const controller = new AbortController();
    const running = composed.lifecycle.run(controller.signal);
    try {
      const pod = makePod();
      const uid = pod.metadata.uid;
      composed.lifecycle.handlePodUpdate({ op: 'ADD', source: 'file', pods: [pod] });
      await clock.advance(3_000);
      const app = runtime.latestContainer(uid, 'app');
      expect(app?.state).toBe('running');
      const relists = runtime.callsOf('getPods').length;

      await clock.advance(1_000);
      runtime.exitContainer(app?.id ?? '', 1);
      source.send({ type: 'CONTAINER_STOPPED_EVENT', containerId: app?.id, createdAt: clock.now(), podStatus: runtime.snapshot(uid) });
      await clock.advance(1_000);
      expect(runtime.latestContainer(uid, 'app')).toMatchObject({ state: 'running', restartCount: 1 });
      expect(runtime.callsOf('getPods').length).toBe(relists);

      // The same exit without its event: nothing notices it before the generic PLEG's next relist.
      const second = runtime.latestContainer(uid, 'app');
      runtime.exitContainer(second?.id ?? '', 1);
      await clock.advance(60_000);
      expect(runtime.latestContainer(uid, 'app')?.id).toBe(second?.id);
      await clock.advance(240_000);
      expect(runtime.latestContainer(uid, 'app')).toMatchObject({ state: 'running', restartCount: 2 });
    } finally {
      controller.abort();
      await running;
    }
  });
});
