import { EventType, podReference } from '@kubelet-ts/common';
import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createEventBroadcaster } from './index.js';
import { FakeEventSink, FakeStatusError, fakeTransportError } from './testing/index.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 0);
const ref = podReference({ metadata: { name: 'web', namespace: 'shop', uid: 'uid-web' } });

function setup(random = () => 0.5) {
  const clock = new FakeClock(START);
  const logger = new RecordingLogger();
  const sink = new FakeEventSink();
  const broadcaster = createEventBroadcaster({ clock, logger, random });
  broadcaster.startRecordingToSink(sink);
  const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
  return { clock, logger, sink, broadcaster, recorder };
}

describe('delivery: the API server cannot be reached', () => {
  it('retries after a randomized first sleep, then every 10 s', async () => {
    const { clock, sink, recorder, logger } = setup(() => 0.25);
    sink.failures.push({ verb: 'create', error: fakeTransportError() }, { verb: 'create', error: fakeTransportError() });
    recorder.event(ref, EventType.Normal, 'Pulled', 'Successfully pulled image "nginx"');
    await clock.advance(0);
    expect(sink.calls).toHaveLength(1);

    await clock.advance(2_499); // first sleep: 10 s × random() = 2.5 s
    expect(sink.calls).toHaveLength(1);
    await clock.advance(1);
    expect(sink.calls).toHaveLength(2);

    await clock.advance(9_999); // then the full 10 s
    expect(sink.calls).toHaveLength(2);
    await clock.advance(1);
    expect(sink.calls).toHaveLength(3);
    expect(sink.events.map((e) => e.reason)).toEqual(['Pulled']);
    expect(logger.find('may retry after sleeping')).toHaveLength(2);
  });

  it('gives up after 12 tries, and the next event is sent', async () => {
    const { clock, sink, recorder, logger, broadcaster } = setup(() => 0);
    for (let i = 0; i < 12; i++) sink.failures.push({ verb: 'any', error: fakeTransportError() });
    recorder.event(ref, EventType.Warning, 'Failed', 'Error: ErrImagePull');
    recorder.event(ref, EventType.Normal, 'Killing', 'Stopping container app');
    await clock.advance(0);
    expect(sink.calls).toHaveLength(2); // random() = 0: the first retry follows at once
    await clock.advance(99_999);
    expect(sink.calls).toHaveLength(11); // then one every 10 s
    await clock.advance(1);
    await broadcaster.flush();

    expect(sink.calls).toHaveLength(13); // 12 tries of the first, one of the second
    expect(logger.find('retry limit exceeded')).toHaveLength(1);
    expect(sink.events.map((e) => e.reason)).toEqual(['Killing']);
  });

  it('retries a 429 (the REST client retries those upstream)', async () => {
    const { clock, sink, recorder } = setup();
    sink.failures.push({ verb: 'create', error: new FakeStatusError(429, 'TooManyRequests') });
    recorder.event(ref, EventType.Normal, 'Created', 'Created container: app');
    await clock.advance(10_000);
    expect(sink.verbs()).toEqual(['create', 'create']);
    expect(sink.events).toHaveLength(1);
  });

  it('retries a failed patch with a patch', async () => {
    const { clock, sink, recorder, broadcaster } = setup();
    recorder.event(ref, EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    await broadcaster.flush();
    sink.failures.push({ verb: 'patch', error: fakeTransportError() });
    recorder.event(ref, EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    await clock.advance(10_000);
    expect(sink.verbs()).toEqual(['create', 'patch', 'patch']);
    expect(sink.events[0]?.count).toBe(2);
  });
});

describe('delivery: the API server refuses the event', () => {
  it('drops it at once, without a retry, and logs why', async () => {
    const { clock, sink, recorder, logger, broadcaster } = setup();
    sink.failures.push({
      verb: 'create',
      error: new FakeStatusError(403, 'Forbidden', 'events is forbidden: User "system:node:x" cannot create'),
    });
    sink.failures.push({ verb: 'create', error: new FakeStatusError(500, 'InternalError', 'etcdserver: request timed out') });
    recorder.event(ref, EventType.Normal, 'Created', 'one');
    recorder.event(ref, EventType.Normal, 'Started', 'two');
    await clock.advance(60_000);
    await broadcaster.flush();

    expect(sink.verbs()).toEqual(['create', 'create']);
    expect(sink.events).toEqual([]);
    expect(logger.find('Server rejected event (will not retry!)').map((r) => [r.level, r.fields['statusCode']])).toEqual([
      ['error', 403],
      ['error', 500],
    ]);
  });

  it('logs AlreadyExists and a terminating namespace quietly (debug)', async () => {
    const { sink, recorder, logger, broadcaster } = setup();
    sink.failures.push({ verb: 'create', error: new FakeStatusError(409, 'AlreadyExists') });
    sink.failures.push({
      verb: 'create',
      error: new FakeStatusError(403, 'Forbidden', 'namespace shop is being terminated', { causes: [{ type: 'NamespaceTerminating' }] }),
    });
    recorder.event(ref, EventType.Normal, 'Created', 'one');
    recorder.event(ref, EventType.Normal, 'Started', 'two');
    await broadcaster.flush();
    expect(logger.find('Server rejected event').map((r) => r.level)).toEqual(['debug', 'debug']);
  });

  it('counts from the event it sent when the server answers something that is not an Event', async () => {
    const clock = new FakeClock(START);
    const logger = new RecordingLogger();
    const calls: string[] = [];
    const broadcaster = createEventBroadcaster({ clock, logger });
    broadcaster.startRecordingToSink({
      create: async () => {
        calls.push('create');
        return { kind: 'Status' };
      },
      patch: async (_ns, _name, patch) => {
        calls.push(`patch ${patch.count}`);
        return {};
      },
    });
    const recorder = broadcaster.newRecorder({ component: 'kubelet', host: 'node-a' });
    recorder.event(ref, EventType.Normal, 'Pulled', 'x');
    recorder.event(ref, EventType.Normal, 'Pulled', 'x');
    await broadcaster.flush();

    expect(calls).toEqual(['create', 'patch 2']);
    expect(logger.find('Unable to read the stored event')[0]?.fields['err']).toMatch(/invalid at metadata/);
  });
});
