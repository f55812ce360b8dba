import { EventType, containerReference, nodeReference, noopEventRecorder, podReference } from './events.js';
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

describe('object references', () => {
  const apiPod = { metadata: { name: 'web', namespace: 'shop', uid: 'uid-web', resourceVersion: '17' } };

  it('refers to the Node as the v1.34 kubelet does: node name as UID, no namespace, no apiVersion', () => {
    expect(nodeReference('node-a')).toEqual({ kind: 'Node', name: 'node-a', uid: 'node-a' });
  });

  it('refers to a pod with its kind, apiVersion, namespace, name, uid and resourceVersion', () => {
    expect(podReference(apiPod)).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      namespace: 'shop',
      name: 'web',
      uid: 'uid-web',
      resourceVersion: '17',
    });
    // Empty metadata fields are left out, as upstream's omitempty does.
    expect(podReference({ metadata: { name: 'static', namespace: '', uid: '' } })).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      name: 'static',
    });
  });

  it('refers to a container through the fieldPath of its pod-spec list', () => {
    expect(containerReference(apiPod, 'nginx').fieldPath).toBe('spec.containers{nginx}');
    expect(containerReference(apiPod, 'setup', 'initContainers')).toEqual({
      ...podReference(apiPod),
      fieldPath: 'spec.initContainers{setup}',
    });
    expect(containerReference(apiPod, 'debug', 'ephemeralContainers').fieldPath).toBe('spec.ephemeralContainers{debug}');
  });
});

describe('RecordingEventRecorder and annotations', () => {
  it('keeps the annotations of an annotated event (upstream AnnotatedEventf), and a copy of them', () => {
    const recorder = new RecordingEventRecorder();
    const annotations = { offending_containers: 'app' };
    recorder.event(pod, EventType.Warning, 'Evicted', 'The node was low on resource: memory.', { annotations });
    annotations.offending_containers = 'changed';
    expect(recorder.events[0]?.annotations).toEqual({ offending_containers: 'app' });
  });
});
