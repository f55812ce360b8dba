// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeSnippet } from '@kubelet-ts/test-support';
import type { PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { createStatusManager } from './index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', () => {
    const seen: string[] = [];
    const pod = newPod({ name: 'web', uid: 'uid-1' });
    const status: PodStatus = {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
        { type: 'ContainersReady', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
      ],
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          started: true,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
          containerID: 'containerd://c-1',
          state: { running: {} },
        },
      ],
    };

    // README:begin
    const statusManager = createStatusManager(); // standalone: noopStatusSink
    statusManager.onStatusChange((pod, status) => seen.push(`${pod.metadata.name} ${status.phase}`));

    // What a pod sync generated (the pod lifecycle does this):
    statusManager.setPodStatus(pod, status, { fromSync: true });
    // A readiness probe succeeded: `ready` and the Ready/ContainersReady conditions change now.
    statusManager.setContainerReadiness(pod.metadata.uid, 'c-1', true);

    const current = statusManager.getPodStatus(pod.metadata.uid); // what GET /pods shows
    const { version } = statusManager.getVersionedPodStatus(pod.metadata.uid) ?? { version: 0 }; // 2
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(seen).toEqual(['web Running', 'web Running']);
    expect(current?.containerStatuses?.[0]?.ready).toBe(true);
    expect(current?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['ContainersReady', 'True'],
    ]);
    expect(version).toBe(2);
  });
});
