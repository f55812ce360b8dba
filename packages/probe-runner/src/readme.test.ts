import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingEventRecorder, RecordingLogger } from '@kubelet-ts/common/testing';
import { createCriExecFn, createProbeManager } from './index.js';
import { readmeSnippet } from '@kubelet-ts/test-support';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const clock = new FakeClock();
    const logger = new RecordingLogger();
    const recorder = new RecordingEventRecorder();
    let fileExists = false;
    // A stand-in for cri.runtime: `test -f /tmp/ready` succeeds once the file "exists".
    const runtime = { execSync: async () => ({ exitCode: fileExists ? 0 : 1, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) }) };
    const synced: string[] = [];
    const requestSync = (uid: string): void => void synced.push(uid);
    const pod = newPod({
      name: 'web',
      uid: 'uid-web',
      containers: [
        { name: 'app', readinessProbe: { exec: { command: ['test', '-f', '/tmp/ready'] }, periodSeconds: 1, failureThreshold: 1 } },
      ],
    });
    const status: PodStatus = {
      phase: 'Running',
      podIP: '10.77.0.9',
      containerStatuses: [
        {
          name: 'app',
          containerID: 'containerd://c1',
          state: { running: {} },
          ready: false,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
        },
      ],
    };

    // README:begin
    const probes = createProbeManager({
      exec: createCriExecFn(runtime), // CRI ExecSync, bounded by each probe's timeoutSeconds
      clock,
      logger,
      recorder, // Unhealthy and ProbeWarning events (an EventRecorder; default: dropped)
    });
    // A changed result (ready, liveness failed…) asks the pod lifecycle for a sync.
    probes.onResultChange((change) => requestSync(change.podUID));
    // Fed from the pod lifecycle's onStatusChange: the pod, its container IDs and pod IP.
    probes.updatePodStatus(pod, status);

    // Status generation asks these two; computePodActions asks probes.probeResults.
    const ready = probes.readiness.isReady('c1', { pod, containerName: 'app' });
    const started = probes.startup.isStarted('c1', { pod, containerName: 'app' });
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect([ready, started]).toEqual([false, true]);
    await clock.advance(1_000);
    expect(probes.readiness.isReady('c1')).toBe(false);
    expect(recorder.lines()).toEqual(['Warning Unhealthy Readiness probe failed: ']);
    expect(recorder.events[0]?.object).toMatchObject({ kind: 'Pod', name: 'web', uid: 'uid-web', fieldPath: 'spec.containers{app}' });
    fileExists = true;
    await clock.advance(1_000);
    expect(probes.readiness.isReady('c1')).toBe(true);
    expect(synced).toEqual(['uid-web', 'uid-web']);
    expect(probes.probeResults.livenessFailed('c1')).toBe(false);
    await probes.stop();
  });
});
