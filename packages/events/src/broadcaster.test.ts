import { EventType, containerReference, nodeReference, podReference } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger, flushMicrotasks } from '@kubelet-ts/common/testing';
import type { Event } from '@kubelet-ts/api';
import { COMPONENT_KUBELET, createEventBroadcaster } from './index.js';
import { FakeEventSink } from './testing/index.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const pod = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '7' } };

function setup() {
  const clock = new FakeClock(START);
  const logger = new RecordingLogger();
  const sink = new FakeEventSink();
  const broadcaster = createEventBroadcaster({ clock, logger, random: () => 0.5 });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: 'node-a' });
  return { clock, logger, sink, broadcaster, recorder };
}

describe('createEventBroadcaster: the events it builds', () => {
  it('POSTs a core/v1 Event about a container in the pod namespace, as the kubelet writes it', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(containerReference(pod, 'nginx'), EventType.Normal, 'Pulled', 'Container image "nginx" already present on machine');
    await broadcaster.flush();

    expect(sink.verbs()).toEqual(['create']);
    const nanos = BigInt(START) * 1_000_000n;
    expect(sink.calls[0]).toEqual({
      verb: 'create',
      event: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `web.${nanos.toString(16)}`, namespace: 'shop' },
        involvedObject: {
          kind: 'Pod',
          namespace: 'shop',
          name: 'web',
          uid: 'uid-web',
          apiVersion: 'v1',
          resourceVersion: '7',
          fieldPath: 'spec.containers{nginx}',
        },
        reason: 'Pulled',
        message: 'Container image "nginx" already present on machine',
        source: { component: 'kubelet', host: 'node-a' },
        firstTimestamp: '2026-01-01T12:00:00Z',
        lastTimestamp: '2026-01-01T12:00:00Z',
        count: 1,
        type: 'Normal',
        eventTime: null,
        reportingComponent: 'kubelet',
        reportingInstance: 'node-a',
      },
    });
  });

  it('puts events about the Node (cluster-scoped) in the default namespace', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(nodeReference('node-a'), EventType.Normal, 'Starting', 'Starting kubelet.');
    await broadcaster.flush();

    const [event] = sink.events;
    expect(event?.metadata.namespace).toBe('default');
    expect(event?.involvedObject).toEqual({ kind: 'Node', name: 'node-a', uid: 'node-a' });
  });

  it('gives two events of the same millisecond different names', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(podReference(pod), EventType.Normal, 'Scheduled', 'one');
    recorder.event(podReference(pod), EventType.Normal, 'Killing', 'two');
    await broadcaster.flush();

    const names = sink.events.map((e) => e.metadata.name);
    const nanos = BigInt(START) * 1_000_000n;
    expect(names).toEqual([`web.${nanos.toString(16)}`, `web.${(nanos + 1n).toString(16)}`]);
  });

  it('sets the annotations of an annotated event (upstream AnnotatedEventf)', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(podReference(pod), EventType.Warning, 'Evicted', 'The node was low on resource: memory.', {
      annotations: { offending_containers: 'app' },
    });
    await broadcaster.flush();
    expect(sink.events[0]?.metadata.annotations).toEqual({ offending_containers: 'app' });
  });

  it('never throws into the caller: an unsupported type is logged and dropped', async () => {
    const { sink, broadcaster, recorder, logger } = setup();
    expect(() => recorder.event(podReference(pod), 'Critical' as EventType, 'X', 'y')).not.toThrow();
    await broadcaster.flush();
    expect(sink.calls).toEqual([]);
    expect(logger.find('Unsupported event type')[0]?.fields).toMatchObject({ eventType: 'Critical' });
  });

  it('calls no destination from inside the recording call', () => {
    const { sink, recorder } = setup();
    recorder.event(podReference(pod), EventType.Normal, 'Created', 'Created container: app');
    expect(sink.calls).toEqual([]);
  });
});

describe('createEventBroadcaster: the log and other watchers', () => {
  it('logs each event as upstream StartStructuredLogging does, at debug level by default', async () => {
    const logger = new RecordingLogger();
    const broadcaster = createEventBroadcaster({ clock: new FakeClock(START), logger });
    broadcaster.startStructuredLogging();
    broadcaster.startStructuredLogging({ level: 'info' });
    broadcaster
      .newRecorder({ component: 'kubelet', host: 'node-a' })
      .event(containerReference(pod, 'app'), EventType.Warning, 'BackOff', 'Back-off restarting failed container app');
    await broadcaster.flush();

    const records = logger.find('Event occurred');
    expect(records.map((r) => r.level)).toEqual(['debug', 'info']);
    expect(records[0]?.fields).toEqual({
      object: 'shop/web',
      fieldPath: 'spec.containers{app}',
      kind: 'Pod',
      apiVersion: 'v1',
      type: 'Warning',
      reason: 'BackOff',
      message: 'Back-off restarting failed container app',
    });
  });

  it('hands watchers a copy of every event, and a throwing watcher harms nobody', async () => {
    const seen: Event[] = [];
    const logger = new RecordingLogger();
    const broadcaster = createEventBroadcaster({ clock: new FakeClock(START), logger });
    broadcaster.startEventWatcher(() => {
      throw new Error('boom');
    });
    broadcaster.startEventWatcher((e) => {
      seen.push(e);
      e.reason = 'Changed';
    });
    const stopLast = broadcaster.startEventWatcher((e) => void seen.push(e));
    const recorder = broadcaster.newRecorder({ component: 'kubelet' });
    recorder.event(podReference(pod), EventType.Normal, 'Started', 'Started container app');
    await broadcaster.flush();
    stopLast();
    recorder.event(podReference(pod), EventType.Normal, 'Killing', 'Stopping container app');
    await broadcaster.flush();

    // The second watcher changed its copy only; the third (stopped before the second event) saw the original.
    expect(seen.map((e) => e.reason)).toEqual(['Changed', 'Started', 'Changed']);
    expect(logger.find('Event handler failed')).toHaveLength(2);
  });
});

describe('createEventBroadcaster: bounded queues', () => {
  it('drops events beyond 1000 queued for a destination and never blocks the caller', async () => {
    const logger = new RecordingLogger();
    const broadcaster = createEventBroadcaster({ clock: new FakeClock(START), logger });
    const pending: (() => void)[] = [];
    let creates = 0;
    broadcaster.startRecordingToSink({
      create: () => {
        creates++;
        return new Promise((resolve) => pending.push(() => resolve(undefined)));
      },
      patch: () => Promise.reject(new Error('not expected')),
    });
    const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
    // Distinct objects and reasons: neither the spam filter nor aggregation plays a part.
    for (let i = 0; i < 1003; i++) recorder.event({ kind: 'Pod', namespace: 'ns', name: `p${i}` }, EventType.Normal, `R${i}`, 'm');

    expect(logger.find('too many queued events')).toHaveLength(3);
    await flushMicrotasks();
    expect(creates).toBe(1); // one at a time: the API server is slow, the rest waits in the queue
    while (pending.length > 0) {
      pending.shift()?.();
      await flushMicrotasks(2);
    }
    await broadcaster.flush();
    expect(creates).toBe(1000);
  });
});

describe('createEventBroadcaster: shutdown', () => {
  it('stops retrying, drops what is queued and refuses later events', async () => {
    const { clock, sink, broadcaster, recorder, logger } = setup();
    sink.failures.push({ verb: 'any', error: new Error('connect ECONNREFUSED') });
    recorder.event(podReference(pod), EventType.Normal, 'Created', 'one');
    recorder.event(podReference(pod), EventType.Normal, 'Started', 'two');
    await clock.advance(0);
    expect(sink.calls).toHaveLength(1); // the first failed and sleeps before its retry

    await broadcaster.shutdown();
    recorder.event(podReference(pod), EventType.Normal, 'Killing', 'three');
    await clock.advance(60_000);

    expect(sink.calls).toHaveLength(1);
    expect(logger.find('broadcaster is shut down').map((r) => r.level)).toEqual(['error']);
    expect(logger.find('Unable to record event (will not retry!)')[0]?.level).toBe('debug');
  });
});
