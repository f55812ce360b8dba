// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventType, containerReference, nodeReference } from '@kubelet-ts/common';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { COMPONENT_KUBELET, createEventBroadcaster } from './index.js';
import { FakeEventSink } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const logger = new RecordingLogger();
    const sink = new FakeEventSink(); // API mode: the kubelet's adapter over @kubelet-ts/kube-client
    const pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-web' } };

    // README:begin
    const broadcaster = createEventBroadcaster({ logger });
    broadcaster.startStructuredLogging(); // every event in the log, at debug level (upstream: -v=3)
    broadcaster.startRecordingToSink(sink); // API mode only: POST, PATCH of repeats, retries
    const recorder = broadcaster.newRecorder({ component: COMPONENT_KUBELET, host: 'node-a' });

    recorder.event(nodeReference('node-a'), EventType.Normal, 'Starting', 'Starting kubelet.');
    recorder.event(containerReference(pod, 'nginx'), EventType.Normal, 'Pulling', 'Pulling image "nginx"');
    recorder.event(containerReference(pod, 'nginx'), EventType.Normal, 'Pulling', 'Pulling image "nginx"');

    await broadcaster.flush(); // tests only: wait until every event was handled
    await broadcaster.shutdown();
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(sink.verbs()).toEqual(['create', 'create', 'patch']);
    expect(sink.events.map((e) => `${e.metadata.namespace} ${e.reason} ${e.count}`)).toEqual(['default Starting 1', 'default Pulling 2']);
    expect(logger.find('Event occurred')).toHaveLength(3);
  });
});
