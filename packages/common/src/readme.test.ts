import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { EventType, noopEventRecorder, noopMetrics } from './index.js';
import type { EventRecorder, Metrics } from './index.js';
import { RecordingEventRecorder, RecordingMetrics } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the recorder and metrics snippet, which is the README block verbatim', () => {
    // README:begin
    function createPuller(options: { recorder?: EventRecorder; metrics?: Metrics }) {
      const recorder = options.recorder ?? noopEventRecorder;
      const pulls = (options.metrics ?? noopMetrics).counter({
        name: 'kubelet_image_pulls_total', // get-or-create: every caller of this name shares the counter
        help: 'Image pulls by result.',
        labelNames: ['result'],
      });
      return (pod: { namespace: string; name: string; uid: string }, image: string) => {
        const ref = { kind: 'Pod', apiVersion: 'v1', ...pod, fieldPath: 'spec.containers{app}' };
        recorder.event(ref, EventType.Normal, 'Pulling', `Pulling image "${image}"`);
        pulls.inc({ result: 'success' });
      };
    }
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    const recorder = new RecordingEventRecorder();
    const metrics = new RecordingMetrics();
    createPuller({ recorder, metrics })({ namespace: 'default', name: 'web', uid: 'u1' }, 'nginx');
    createPuller({})({ namespace: 'default', name: 'web', uid: 'u1' }, 'nginx');
    expect(recorder.lines()).toEqual(['Normal Pulling Pulling image "nginx"']);
    expect(recorder.events[0]?.object).toEqual({
      kind: 'Pod',
      apiVersion: 'v1',
      namespace: 'default',
      name: 'web',
      uid: 'u1',
      fieldPath: 'spec.containers{app}',
    });
    expect(metrics.value('kubelet_image_pulls_total', { result: 'success' })).toBe(1);
  });
});
