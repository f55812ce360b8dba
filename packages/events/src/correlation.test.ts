import { EventType, containerReference, podReference } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { AGGREGATED_MESSAGE_PREFIX, createEventBroadcaster } from './index.js';
import { FakeEventSink } from './testing/index.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const pod = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' } };
const ref = podReference(pod);

function setup() {
  const clock = new FakeClock(START);
  const logger = new RecordingLogger();
  const sink = new FakeEventSink();
  const broadcaster = createEventBroadcaster({ clock, logger, random: () => 0.5 });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
  return { clock, logger, sink, broadcaster, recorder };
}

describe('correlation: a repeated event', () => {
  it('PATCHes count, lastTimestamp and message of the first event instead of a new POST', async () => {
    const { clock, sink, broadcaster, recorder } = setup();
    recorder.event(ref, EventType.Warning, 'BackOff', 'Back-off restarting failed container app');
    await broadcaster.flush();
    await clock.advance(30_000);
    recorder.event(ref, EventType.Warning, 'BackOff', 'Back-off restarting failed container app');
    await broadcaster.flush();
    await clock.advance(30_000);
    recorder.event(ref, EventType.Warning, 'BackOff', 'Back-off restarting failed container app');
    await broadcaster.flush();

    const first = sink.events[0];
    expect(sink.verbs()).toEqual(['create', 'patch', 'patch']);
    expect(sink.calls.slice(1)).toEqual([
      {
        verb: 'patch',
        namespace: 'shop',
        name: first?.metadata.name,
        patch: { count: 2, lastTimestamp: '2026-01-01T12:00:30Z', message: 'Back-off restarting failed container app' },
      },
      {
        verb: 'patch',
        namespace: 'shop',
        name: first?.metadata.name,
        patch: { count: 3, lastTimestamp: '2026-01-01T12:01:00Z', message: 'Back-off restarting failed container app' },
      },
    ]);
    expect(sink.events).toHaveLength(1);
    expect(first).toMatchObject({ count: 3, firstTimestamp: '2026-01-01T12:00:00Z', lastTimestamp: '2026-01-01T12:01:00Z' });
  });

  it('tells events apart by container (fieldPath), type, reason and message', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(containerReference(pod, 'a'), EventType.Normal, 'Started', 'Started container');
    recorder.event(containerReference(pod, 'b'), EventType.Normal, 'Started', 'Started container');
    recorder.event(containerReference(pod, 'a'), EventType.Warning, 'Started', 'Started container');
    recorder.event(containerReference(pod, 'a'), EventType.Normal, 'Created', 'Started container');
    recorder.event(containerReference(pod, 'a'), EventType.Normal, 'Started', 'Started container again');
    await broadcaster.flush();
    expect(sink.verbs()).toEqual(['create', 'create', 'create', 'create', 'create']);
  });

  it('POSTs again, under the first name and with the count so far, when the first event is gone (404)', async () => {
    const { sink, broadcaster, recorder } = setup();
    recorder.event(ref, EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    await broadcaster.flush();
    const name = sink.events[0]?.metadata.name ?? '';
    sink.delete('shop', name); // the API server's event TTL passed
    recorder.event(ref, EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    await broadcaster.flush();

    expect(sink.verbs()).toEqual(['create', 'patch', 'create']);
    const recreated = sink.calls[2];
    expect(recreated?.verb === 'create' && recreated.event.metadata).toEqual({ name, namespace: 'shop' }); // no resourceVersion
    expect(sink.get('shop', name)?.count).toBe(2);
  });
});

describe('correlation: similar events (same reason, other messages)', () => {
  it('turns the 10th distinct message within 10 minutes into one aggregated event, then counts it', async () => {
    const { clock, sink, broadcaster, recorder } = setup();
    for (let i = 1; i <= 11; i++) {
      recorder.event(ref, EventType.Warning, 'FailedMount', `MountVolume.SetUp failed for volume "v${i}"`);
      await clock.advance(1000);
    }
    await broadcaster.flush();

    expect(sink.verbs()).toEqual([...Array<string>(9).fill('create'), 'create', 'patch']);
    const aggregated = sink.events[9];
    expect(aggregated).toMatchObject({
      reason: 'FailedMount',
      type: 'Warning',
      count: 2,
      message: `${AGGREGATED_MESSAGE_PREFIX}MountVolume.SetUp failed for volume "v11"`,
      involvedObject: ref,
      source: { component: 'kubelet', host: 'node-a' },
      firstTimestamp: '2026-01-01T12:00:09Z',
      lastTimestamp: '2026-01-01T12:00:10Z',
      reportingComponent: '', // upstream's aggregate copies no reporting fields
    });
    expect(sink.events).toHaveLength(10);
  });

  it('starts afresh when more than 10 minutes passed since the last similar event', async () => {
    const { clock, sink, broadcaster, recorder } = setup();
    for (let i = 1; i <= 9; i++) recorder.event(ref, EventType.Warning, 'FailedMount', `failed ${i}`);
    await broadcaster.flush();
    await clock.advance(600_001);
    recorder.event(ref, EventType.Warning, 'FailedMount', 'failed 10');
    await broadcaster.flush();

    expect(sink.events.map((e) => e.message)).toEqual([...Array.from({ length: 9 }, (_, i) => `failed ${i + 1}`), 'failed 10']);
  });
});

describe('correlation: the spam filter', () => {
  it('lets a source send 25 events about one object at once, then one every 5 minutes', async () => {
    const { clock, sink, broadcaster, recorder, logger } = setup();
    // Distinct reasons: no aggregation; containers share their pod's budget (fieldPath is not in the key).
    for (let i = 0; i < 30; i++) recorder.event(containerReference(pod, `c${i % 3}`), EventType.Normal, `Reason${i}`, 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(25);
    expect(logger.find('spam filter')).toHaveLength(5);

    await clock.advance(299_000);
    recorder.event(ref, EventType.Normal, 'Late1', 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(25);

    await clock.advance(1000);
    recorder.event(ref, EventType.Normal, 'Late2', 'm');
    recorder.event(ref, EventType.Normal, 'Late3', 'm');
    await broadcaster.flush();
    expect(sink.calls.map((c) => (c.verb === 'create' ? c.event.reason : '')).slice(25)).toEqual(['Late2']);

    // Another object has its own budget.
    recorder.event(podReference({ metadata: { name: 'db', namespace: 'shop', uid: 'uid-db' } }), EventType.Normal, 'Started', 'm');
    await broadcaster.flush();
    expect(sink.calls).toHaveLength(27);
  });

  it('still counts a filtered repeat: the next one that passes carries the full count', async () => {
    const clock = new FakeClock(START);
    const sink = new FakeEventSink();
    const broadcaster = createEventBroadcaster({ clock, correlator: { burstSize: 1 } });
    broadcaster.startRecordingToSink(sink);
    const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
    recorder.event(ref, EventType.Warning, 'Unhealthy', 'Readiness probe failed');
    recorder.event(ref, EventType.Warning, 'Unhealthy', 'Readiness probe failed');
    await broadcaster.flush();
    await clock.advance(300_000);
    recorder.event(ref, EventType.Warning, 'Unhealthy', 'Readiness probe failed');
    await broadcaster.flush();

    expect(sink.verbs()).toEqual(['create', 'patch']);
    expect(sink.events[0]?.count).toBe(3);
  });
});

describe('correlation: bounded memory', () => {
  it('keeps at most lruCacheSize events to correlate: a repeat of a forgotten one is a new event', async () => {
    const clock = new FakeClock(START);
    const sink = new FakeEventSink();
    const broadcaster = createEventBroadcaster({ clock, correlator: { lruCacheSize: 2 } });
    broadcaster.startRecordingToSink(sink);
    const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
    for (const reason of ['A', 'B', 'C', 'A']) recorder.event(ref, EventType.Normal, reason, 'm');
    await broadcaster.flush();
    expect(sink.verbs()).toEqual(['create', 'create', 'create', 'create']);
    recorder.event(ref, EventType.Normal, 'A', 'm');
    await broadcaster.flush();
    expect(sink.verbs().at(-1)).toBe('patch');
  });
});
