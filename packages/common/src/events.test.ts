import { EventType, noopEventRecorder } from './events.js';
import type { EventRecorder, ObjectReference } from './events.js';
import { RecordingEventRecorder } from './testing/index.js';

const pod: ObjectReference = { kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: 'web', uid: 'uid-web' };

describe('EventType', () => {
  it('spells the two upstream event types', () => {
    expect(EventType.Normal).toBe('Normal');
    expect(EventType.Warning).toBe('Warning');
  });
});

describe('noopEventRecorder', () => {
  it('accepts events and keeps nothing', () => {
    const recorder: EventRecorder = noopEventRecorder;
    expect(recorder.event(pod, EventType.Warning, 'BackOff', 'Back-off restarting failed container')).toBeUndefined();
  });
});

describe('RecordingEventRecorder', () => {
  it('records every event in order, with the object it is about', () => {
    const recorder = new RecordingEventRecorder();
    recorder.event({ ...pod, fieldPath: 'spec.containers{app}' }, EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    recorder.event(pod, EventType.Warning, 'FailedMount', 'MountVolume.SetUp failed');

    expect(recorder.events).toEqual([
      { object: { ...pod, fieldPath: 'spec.containers{app}' }, type: 'Normal', reason: 'Pulling', message: 'Pulling image "nginx"' },
      { object: pod, type: 'Warning', reason: 'FailedMount', message: 'MountVolume.SetUp failed' },
    ]);
    expect(recorder.lines()).toEqual(['Normal Pulling Pulling image "nginx"', 'Warning FailedMount MountVolume.SetUp failed']);
  });

  it('finds events by reason and object name', () => {
    const recorder = new RecordingEventRecorder();
    recorder.event(pod, EventType.Normal, 'Killing', 'Stopping container app');
    recorder.event({ ...pod, name: 'db' }, EventType.Normal, 'Killing', 'Stopping container db');

    expect(recorder.find('Killing')).toHaveLength(2);
    expect(recorder.find('Killing', 'db').map((e) => e.message)).toEqual(['Stopping container db']);
    expect(recorder.find('Started')).toEqual([]);
  });

  it('keeps a copy of the reference, so that a caller changing its object later does not rewrite history', () => {
    const recorder = new RecordingEventRecorder();
    const ref: ObjectReference = { ...pod };
    recorder.event(ref, EventType.Normal, 'Scheduled', 'ok');
    ref.name = 'changed';
    expect(recorder.events[0]?.object.name).toBe('web');
  });
});
