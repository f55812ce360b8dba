import type { Container, Pod, PodStatus, Probe } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { FakeClock, RecordingEventRecorder, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createProbeManager } from './probe-manager.js';
import type { ProbeManager, ProbeManagerOptions } from './probe-manager.js';
import { FakeExec } from './testing/fake-exec.js';
import type { ProbeOutcome, ProbeResultChange, ProbeTarget, ProbeType } from './types.js';

const START = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

interface Harness {
  clock: FakeClock;
  manager: ProbeManager;
  logger: RecordingLogger;
  recorder: RecordingEventRecorder;
  /** Every prober call, with the fake time it started. */
  calls: Array<{ at: number; type: ProbeType; containerId: string; podIP: string }>;
  /** What the prober answers per probe type (a function of the call). */
  answer: Partial<Record<ProbeType, (target: ProbeTarget) => ProbeOutcome | Promise<ProbeOutcome>>>;
  changes: ProbeResultChange[];
  callsOf(type: ProbeType): number[];
}

const ok: ProbeOutcome = { result: 'success', output: '' };
const bad = (output = 'boom'): ProbeOutcome => ({ result: 'failure', output });

/** A manager with a scripted prober; by default created well before the pods arrive (no restart jitter). */
function setup(options: Partial<ProbeManagerOptions> & { recentStart?: boolean } = {}): Harness {
  // Unless a recent start is wanted, the manager was created long before the pods arrive (no restart jitter).
  const clock = new FakeClock(options.recentStart === true ? START : START - 600_000);
  const logger = new RecordingLogger();
  const recorder = new RecordingEventRecorder();
  const h: Harness = {
    clock,
    logger,
    recorder,
    calls: [],
    answer: {},
    changes: [],
    manager: undefined as unknown as ProbeManager,
    callsOf: (type) => h.calls.filter((c) => c.type === type).map((c) => c.at - START),
  };
  h.manager = createProbeManager({
    exec: new FakeExec().exec,
    clock,
    logger,
    recorder,
    random: () => 0.5,
    prober: async (target) => {
      h.calls.push({ at: clock.now(), type: target.probeType, containerId: target.containerId, podIP: target.podIP });
      return (h.answer[target.probeType] ?? (() => ok))(target);
    },
    ...options,
  });
  h.manager.onResultChange((c) => h.changes.push(c));
  clock.setNow(START);
  return h;
}

function probe(overrides: Partial<Probe> = {}): Probe {
  return { exec: { command: ['true'] }, periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3, ...overrides };
}

function podWith(container: Partial<Container>, spec: Partial<Pod['spec']> = {}): Pod {
  return newPod({ name: 'web', uid: 'uid-web', containers: [{ name: 'app', ...container }], spec });
}

function runningStatus(id: string, startedAt = START, extra: Partial<PodStatus> = {}): PodStatus {
  return {
    phase: 'Running',
    podIP: '10.0.0.7',
    containerStatuses: [
      {
        name: 'app',
        containerID: `containerd://${id}`,
        state: { running: { startedAt: iso(startedAt) } },
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
      },
    ],
    ...extra,
  };
}

function exitedStatus(id: string, phase = 'Running'): PodStatus {
  return {
    phase,
    containerStatuses: [
      {
        name: 'app',
        containerID: `containerd://${id}`,
        state: { terminated: { exitCode: 1 } },
        ready: false,
        restartCount: 0,
        image: 'busybox',
        imageID: '',
      },
    ],
  };
}

describe('probe manager: initial results', () => {
  it('starts with readiness failure, liveness success and startup unknown for a new container', async () => {
    const h = setup();
    const pod = podWith({
      readinessProbe: probe({ initialDelaySeconds: 60 }),
      livenessProbe: probe({ initialDelaySeconds: 60 }),
      startupProbe: probe({ initialDelaySeconds: 60 }),
    });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.manager.results.readiness.get('c1')).toBe('failure');
    expect(h.manager.results.liveness.get('c1')).toBe('success');
    expect(h.manager.results.startup.get('c1')).toBe('unknown');
    const ref = { pod, containerName: 'app' };
    expect(h.manager.readiness.isReady('c1', ref)).toBe(false);
    expect(h.manager.startup.isStarted('c1', ref)).toBe(false);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(false);
    expect(h.manager.probeResults.startupFailed('c1')).toBe(false);
    expect(h.manager.probeResults.startupSucceeded('c1')).toBe(false);
    expect(h.calls).toEqual([]);
  });

  it('reports containers without probes as ready and started, and probed ones not yet seen as neither', async () => {
    const h = setup();
    const pod = newPod({ uid: 'u2', containers: [{ name: 'plain' }, { name: 'probed', readinessProbe: probe(), startupProbe: probe() }] });
    expect(h.manager.readiness.isReady('x', { pod, containerName: 'plain' })).toBe(true);
    expect(h.manager.startup.isStarted('x', { pod, containerName: 'plain' })).toBe(true);
    expect(h.manager.readiness.isReady('y', { pod, containerName: 'probed' })).toBe(false);
    expect(h.manager.startup.isStarted('y', { pod, containerName: 'probed' })).toBe(false);
    // Without a ref, an unknown container counts as having no probe.
    expect(h.manager.readiness.isReady('unknown')).toBe(true);
  });
});

describe('probe manager: thresholds', () => {
  it('marks liveness failed after failureThreshold consecutive failures, then holds until a new container', async () => {
    const h = setup();
    h.answer.liveness = () => bad('HTTP probe failed with statuscode: 500');
    const pod = podWith({ livenessProbe: probe({ failureThreshold: 3 }) });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    await h.clock.advance(10_000);
    expect(h.callsOf('liveness')).toEqual([0, 10_000]);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(false);
    await h.clock.advance(10_000);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(true);
    expect(h.changes.map((c) => [c.probeType, c.containerId, c.result])).toEqual([
      ['liveness', 'c1', 'success'],
      ['liveness', 'c1', 'failure'],
    ]);
    expect(h.changes[1]).toMatchObject({ podUID: 'uid-web', containerName: 'app', previous: 'success' });
    // On hold: the failing container is not probed again.
    await h.clock.advance(30_000);
    expect(h.callsOf('liveness')).toHaveLength(3);
    // One Unhealthy event per failed run (below the threshold too), about the container.
    const unhealthy = {
      object: { kind: 'Pod', apiVersion: 'v1', name: 'web', namespace: 'default', uid: 'uid-web', fieldPath: 'spec.containers{app}' },
      type: 'Warning',
      reason: 'Unhealthy',
      message: 'Liveness probe failed: HTTP probe failed with statuscode: 500',
    };
    expect(h.recorder.events).toEqual([unhealthy, unhealthy, unhealthy]);
    // The same text is logged (standalone mode has no API server to show events).
    expect(h.logger.find('Liveness probe failed: HTTP probe failed with statuscode: 500')[0]?.fields).toMatchObject({
      reason: 'Unhealthy',
      pod: 'default/web',
      podUID: 'uid-web',
      containerName: 'app',
    });

    // A new container (restart): results reset, probing resumes from the initial success.
    h.answer.liveness = () => ok;
    h.manager.updatePodStatus(pod, runningStatus('c2', START + 60_000));
    await h.clock.advance(10_000);
    expect(h.manager.results.liveness.get('c1')).toBeUndefined();
    expect(h.manager.results.liveness.get('c2')).toBe('success');
    expect(h.callsOf('liveness')).toHaveLength(4);
  });

  it('resets the failure run on a success', async () => {
    const h = setup();
    const answers = [bad(), bad(), ok, bad(), bad()];
    h.answer.liveness = () => answers.shift() ?? ok;
    h.manager.updatePodStatus(podWith({ livenessProbe: probe({ failureThreshold: 3 }) }), runningStatus('c1'));
    await h.clock.advance(50_000);
    expect(h.callsOf('liveness')).toHaveLength(6);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(false);
  });

  it('needs successThreshold successes for readiness and failureThreshold failures to lose it, and keeps probing', async () => {
    const h = setup();
    const answers = [ok, ok, bad(), bad(), ok];
    h.answer.readiness = () => answers.shift() ?? ok;
    const pod = podWith({ readinessProbe: probe({ successThreshold: 2, failureThreshold: 2 }) });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    const ready = (): boolean => h.manager.readiness.isReady('c1', { pod, containerName: 'app' });
    await h.clock.advance(0);
    expect(ready()).toBe(false);
    await h.clock.advance(10_000);
    expect(ready()).toBe(true);
    await h.clock.advance(10_000);
    expect(ready()).toBe(true);
    await h.clock.advance(10_000);
    expect(ready()).toBe(false);
    await h.clock.advance(10_000);
    expect(h.callsOf('readiness')).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(ready()).toBe(false);
  });

  it('marks startup failed after failureThreshold failures (computePodActions then kills)', async () => {
    const h = setup();
    h.answer.startup = () => bad();
    h.manager.updatePodStatus(podWith({ startupProbe: probe({ failureThreshold: 2, periodSeconds: 5 }) }), runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.manager.probeResults.startupFailed('c1')).toBe(false);
    await h.clock.advance(5_000);
    expect(h.manager.probeResults.startupFailed('c1')).toBe(true);
    expect(h.manager.results.startup.get('c1')).toBe('failure');
    await h.clock.advance(20_000);
    expect(h.callsOf('startup')).toEqual([0, 5_000]);
    expect(h.recorder.lines()).toEqual(['Warning Unhealthy Startup probe failed: boom', 'Warning Unhealthy Startup probe failed: boom']);
    expect(h.logger.find('Startup probe failed: boom')).toHaveLength(2);
  });

  it('counts a prober error as no result (after three tries) and an unknown outcome as a failure', async () => {
    const h = setup();
    let tries = 0;
    h.answer.liveness = () => {
      tries++;
      throw new Error('cannot resolve port');
    };
    h.manager.updatePodStatus(podWith({ livenessProbe: probe({ failureThreshold: 1 }) }), runningStatus('c1'));
    await h.clock.advance(0);
    expect(tries).toBe(3);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(false);
    expect(h.logger.find('Probe errored')).toHaveLength(1);
    // Once per run (not per try), as upstream.
    expect(h.recorder.lines()).toEqual(['Warning Unhealthy Liveness probe errored and resulted in unknown state: cannot resolve port']);
    h.answer.liveness = () => ({ result: 'unknown', output: '' });
    await h.clock.advance(10_000);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(true);
    // An unknown result without an error fails the probe silently (upstream: no event).
    expect(h.recorder.events).toHaveLength(1);
  });

  it('counts a warning (redirect to another host) as a success', async () => {
    const h = setup();
    h.answer.readiness = () => ({ result: 'warning', output: 'Probe terminated redirects, Response body: ' });
    const pod = podWith({ readinessProbe: probe() });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.manager.readiness.isReady('c1')).toBe(true);
    expect(h.recorder.events).toEqual([
      {
        object: expect.objectContaining({ name: 'web', uid: 'uid-web', fieldPath: 'spec.containers{app}' }),
        type: 'Warning',
        reason: 'ProbeWarning',
        message: 'Readiness probe warning: Probe terminated redirects, Response body: ',
      },
    ]);
    expect(h.logger.find('Readiness probe warning: Probe terminated redirects')[0]?.fields).toMatchObject({ reason: 'ProbeWarning' });
  });
});

describe('probe manager: startup gating and initial delay', () => {
  it('holds liveness and readiness back until the startup probe succeeds, then stops probing startup', async () => {
    const h = setup();
    let started = false;
    h.answer.startup = () => (started ? ok : bad('not yet'));
    h.answer.liveness = () => bad('would kill');
    const pod = podWith({
      startupProbe: probe({ periodSeconds: 1, failureThreshold: 30 }),
      livenessProbe: probe({ periodSeconds: 1, failureThreshold: 1 }),
      readinessProbe: probe({ periodSeconds: 1 }),
    });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(5_000);
    expect(h.callsOf('startup')).toHaveLength(6);
    expect(h.callsOf('liveness')).toEqual([]);
    expect(h.callsOf('readiness')).toEqual([]);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(false);
    expect(h.manager.readiness.isReady('c1', { pod, containerName: 'app' })).toBe(false);

    started = true;
    await h.clock.advance(1_000);
    expect(h.manager.startup.isStarted('c1', { pod, containerName: 'app' })).toBe(true);
    expect(h.manager.probeResults.startupSucceeded('c1')).toBe(true);
    await h.clock.advance(3_000);
    expect(h.callsOf('startup')).toHaveLength(7);
    expect(h.callsOf('liveness').length).toBeGreaterThanOrEqual(1);
    expect(h.callsOf('liveness')[0]).toBeGreaterThanOrEqual(6_000);
    expect(h.manager.probeResults.livenessFailed('c1')).toBe(true);
    expect(h.manager.readiness.isReady('c1', { pod, containerName: 'app' })).toBe(true);
  });

  it('does not probe before initialDelaySeconds after the container started', async () => {
    const h = setup();
    h.manager.updatePodStatus(
      podWith({ readinessProbe: probe({ initialDelaySeconds: 15, periodSeconds: 5 }) }),
      runningStatus('c1', START),
    );
    await h.clock.advance(30_000);
    expect(h.callsOf('readiness')).toEqual([15_000, 20_000, 25_000, 30_000]);
  });
});

describe('probe manager: scheduling', () => {
  it('delays the first probe by a random part of the period right after a kubelet (re)start', async () => {
    const h = setup({ recentStart: true });
    h.manager.updatePodStatus(podWith({ livenessProbe: probe({ periodSeconds: 10 }) }), runningStatus('c1'));
    await h.clock.advance(4_999);
    expect(h.callsOf('liveness')).toEqual([]);
    await h.clock.advance(1);
    expect(h.callsOf('liveness')).toEqual([5_000]);
    await h.clock.advance(10_000);
    expect(h.callsOf('liveness')).toEqual([5_000, 15_000]);
  });

  it('probes at once when the kubelet has been up for more than a period', async () => {
    const h = setup();
    h.manager.updatePodStatus(podWith({ livenessProbe: probe({ periodSeconds: 10 }) }), runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.callsOf('liveness')).toEqual([0]);
  });

  it('keeps each worker on its own period without drift, skipping (and counting) runs a slow probe overlapped', async () => {
    const h = setup();
    let n = 0;
    h.answer.liveness = async () => {
      // The second probe takes 25 s (a hanging target); the others 3 s.
      await h.clock.sleep(n++ === 1 ? 25_000 : 3_000);
      return ok;
    };
    h.manager.updatePodStatus(podWith({ livenessProbe: probe({ periodSeconds: 10, timeoutSeconds: 30 }) }), runningStatus('c1'));
    await h.clock.advance(60_000);
    expect(h.callsOf('liveness')).toEqual([0, 10_000, 40_000, 50_000, 60_000]);
    expect(h.manager.metrics().missedRuns).toBe(2);
  });

  it('bounds concurrent probes and serves waiting ones first in, first out', async () => {
    const h = setup({ maxConcurrentProbes: 2 });
    const release: Array<() => void> = [];
    const order: string[] = [];
    h.answer.readiness = (t) =>
      new Promise((resolve) => {
        order.push(t.containerId);
        release.push(() => resolve(ok));
      });
    for (let i = 0; i < 5; i++) {
      const pod = newPod({ name: `p${i}`, uid: `u${i}`, containers: [{ name: 'app', readinessProbe: probe({ periodSeconds: 100 }) }] });
      h.manager.updatePodStatus(pod, runningStatus(`c${i}`));
    }
    await h.clock.advance(0);
    expect(order).toEqual(['c0', 'c1']);
    expect(h.manager.metrics()).toMatchObject({ activeProbes: 2, waitingProbes: 3 });
    release.shift()?.();
    await h.clock.advance(0);
    expect(order).toEqual(['c0', 'c1', 'c2']);
    release.shift()?.();
    release.shift()?.();
    await h.clock.advance(0);
    expect(order).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    while (release.length > 0) release.shift()?.();
    await h.clock.advance(0);
    expect(h.manager.metrics()).toMatchObject({ activeProbes: 0, waitingProbes: 0 });
  });

  it('runs the readiness probe of a not-ready container at once when its status changes', async () => {
    const h = setup();
    h.answer.readiness = () => bad();
    const pod = podWith({ readinessProbe: probe({ periodSeconds: 10, failureThreshold: 1 }) });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(3_000);
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.callsOf('readiness')).toEqual([0, 3_000]);
    await h.clock.advance(7_000);
    // The periodic schedule is unchanged by the manual run.
    expect(h.callsOf('readiness')).toEqual([0, 3_000, 10_000]);
  });

  it('probes readiness as soon as the container runs when the first run found it still being created', async () => {
    const h = setup();
    const pod = podWith({ readinessProbe: probe({ periodSeconds: 10 }) });
    // The pod is known before its container exists (ContainerCreating): the first run has nothing to probe.
    h.manager.updatePodStatus(pod, {
      phase: 'Pending',
      containerStatuses: [
        { name: 'app', state: { waiting: { reason: 'ContainerCreating' } }, ready: false, restartCount: 0, image: 'busybox', imageID: '' },
      ],
    });
    await h.clock.advance(0);
    expect(h.callsOf('readiness')).toEqual([]);
    await h.clock.advance(2_000);
    h.manager.updatePodStatus(pod, runningStatus('c1', START + 2_000));
    await h.clock.advance(0);
    expect(h.callsOf('readiness')).toEqual([2_000]);
    expect(h.manager.readiness.isReady('c1', { pod, containerName: 'app' })).toBe(true);
  });

  it('leaves a status change during the restart jitter to the first run', async () => {
    const h = setup({ recentStart: true });
    const pod = podWith({ readinessProbe: probe({ periodSeconds: 10 }) });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(1_000);
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.callsOf('readiness')).toEqual([]);
    await h.clock.advance(4_000);
    expect(h.callsOf('readiness')).toEqual([5_000]);
  });
});

describe('probe manager: worker lifecycle', () => {
  it('learns the pod IP and passes it to the prober', async () => {
    const h = setup();
    h.manager.updatePodStatus(podWith({ livenessProbe: probe() }), runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.calls[0]).toMatchObject({ containerId: 'c1', podIP: '10.0.0.7' });
  });

  it('keeps one worker per container and probe type', async () => {
    const h = setup();
    const pod = newPod({
      uid: 'u1',
      containers: [{ name: 'a', livenessProbe: probe(), readinessProbe: probe() }, { name: 'b' }],
      initContainers: [
        { name: 'side', restartPolicy: 'Always', startupProbe: probe() },
        { name: 'init', command: ['true'] },
      ],
    });
    h.manager.addPod(pod);
    h.manager.addPod(pod);
    h.manager.updatePodStatus(pod, { phase: 'Pending' });
    expect(
      h.manager
        .workers()
        .map((w) => `${w.containerName}/${w.probeType}`)
        .sort(),
    ).toEqual(['a/liveness', 'a/readiness', 'side/startup']);
  });

  it('stops the workers and forgets the results when the pod is removed', async () => {
    const h = setup();
    h.manager.updatePodStatus(podWith({ livenessProbe: probe(), readinessProbe: probe() }), runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.manager.results.readiness.get('c1')).toBe('success');
    h.manager.removePod('uid-web');
    await h.clock.advance(30_000);
    expect(h.calls).toHaveLength(2);
    expect(h.manager.workers()).toEqual([]);
    expect(h.manager.results.readiness.get('c1')).toBeUndefined();
    expect(h.manager.results.liveness.get('c1')).toBeUndefined();
    expect(h.manager.metrics().probeTotal).toEqual([]);
  });

  it('stops the workers once the pod phase is terminal', async () => {
    const h = setup();
    const pod = podWith({ livenessProbe: probe() });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    h.manager.updatePodStatus(pod, exitedStatus('c1', 'Succeeded'));
    await h.clock.advance(30_000);
    expect(h.calls).toHaveLength(1);
    expect(h.manager.workers()).toEqual([]);
  });

  it('marks an exited container failed and stops probing it when it will not be restarted', async () => {
    const h = setup();
    const pod = podWith({ readinessProbe: probe() }, { restartPolicy: 'Never' });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    expect(h.manager.readiness.isReady('c1')).toBe(true);
    h.manager.updatePodStatus(pod, exitedStatus('c1'));
    await h.clock.advance(10_000);
    expect(h.manager.workers()).toEqual([]);
    expect(h.calls).toHaveLength(1);
  });

  it('stops liveness probing with a last success when the pod is being deleted, readiness goes on', async () => {
    const h = setup();
    const pod = podWith({ livenessProbe: probe(), readinessProbe: probe() });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(0);
    const deleting: Pod = { ...pod, metadata: { ...pod.metadata, deletionTimestamp: iso(START + 1_000) } };
    h.manager.updatePodStatus(deleting, runningStatus('c1'));
    await h.clock.advance(10_000);
    expect(h.manager.workers().map((w) => w.probeType)).toEqual(['readiness']);
    expect(h.callsOf('liveness')).toEqual([0]);
    expect(h.callsOf('readiness')).toEqual([0, 10_000]);
  });

  it('stops everything on stop()', async () => {
    const h = setup();
    h.manager.updatePodStatus(podWith({ livenessProbe: probe() }), runningStatus('c1'));
    await h.clock.advance(0);
    await h.manager.stop();
    await h.clock.advance(60_000);
    expect(h.calls).toHaveLength(1);
    expect(h.clock.pendingTimers).toBe(0);
  });
});

describe('probe manager: metrics', () => {
  it('counts probes by type and result and records durations', async () => {
    const h = setup();
    const answers = [ok, bad(), ok];
    h.answer.liveness = async () => {
      await h.clock.sleep(20);
      return answers.shift() ?? ok;
    };
    h.manager.updatePodStatus(podWith({ livenessProbe: probe() }), runningStatus('c1'));
    await h.clock.advance(20_100);
    const m = h.manager.metrics();
    const base = { probe_type: 'Liveness', container: 'app', pod: 'web', namespace: 'default', pod_uid: 'uid-web' };
    expect(m.probeTotal).toEqual(
      expect.arrayContaining([
        { labels: { ...base, result: 'successful' }, value: 2 },
        { labels: { ...base, result: 'failed' }, value: 1 },
      ]),
    );
    expect(m.probeTotal).toHaveLength(2);
    expect(m.probeDuration).toHaveLength(1);
    expect(m.probeDuration[0]).toMatchObject({
      labels: { probe_type: 'Liveness', container: 'app', pod: 'web', namespace: 'default' },
      count: 3,
    });
    expect(m.probeDuration[0]?.sum).toBeCloseTo(0.06, 5);
    // 20 ms falls in the 0.025 s bucket (cumulative).
    expect(m.probeDuration[0]?.counts.slice(0, 3)).toEqual([0, 0, 3]);
  });
  it('records prober_probe_total and prober_probe_duration_seconds through the Metrics seam, with upstream labels, until the pod goes', async () => {
    const metrics = new RecordingMetrics();
    const h = setup({ metrics });
    const answers = [ok, bad()];
    h.answer.liveness = async () => {
      await h.clock.sleep(20);
      return answers.shift() ?? ok;
    };
    h.manager.updatePodStatus(podWith({ livenessProbe: probe() }), runningStatus('c1'));
    await h.clock.advance(10_100);
    const base = { probe_type: 'Liveness', container: 'app', pod: 'web', namespace: 'default', pod_uid: 'uid-web' };
    expect(metrics.kind('prober_probe_total')).toBe('counter');
    expect(metrics.value('prober_probe_total', { ...base, result: 'successful' })).toBe(1);
    expect(metrics.value('prober_probe_total', { ...base, result: 'failed' })).toBe(1);
    expect(
      metrics.observations('prober_probe_duration_seconds', { probe_type: 'Liveness', container: 'app', pod: 'web', namespace: 'default' }),
    ).toEqual([0.02, 0.02]);
    expect(metrics.buckets('prober_probe_duration_seconds')).toEqual([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    h.manager.removePod('uid-web');
    await h.clock.advance(0);
    expect(metrics.samples('prober_probe_total')).toEqual([]);
    expect(metrics.samples('prober_probe_duration_seconds')).toEqual([]);
  });
});

describe('probe manager: events', () => {
  it('records nothing for probes that succeed, wait for their initial delay, or hold after a kill verdict', async () => {
    const h = setup();
    h.answer.readiness = () => ok;
    h.answer.liveness = () => bad();
    const pod = podWith({ readinessProbe: probe(), livenessProbe: probe({ failureThreshold: 1, initialDelaySeconds: 15 }) });
    h.manager.updatePodStatus(pod, runningStatus('c1'));
    await h.clock.advance(10_000);
    expect(h.recorder.events).toEqual([]);
    await h.clock.advance(40_000);
    // Past the initial delay one failure is the verdict; the worker then holds.
    expect(h.recorder.lines()).toEqual(['Warning Unhealthy Liveness probe failed: boom']);
  });

  it('a sidecar (restartable init container) is referred to as spec.initContainers{name}', async () => {
    const h = setup();
    h.answer.readiness = () => bad('connection refused');
    const pod = newPod({
      name: 'web',
      uid: 'uid-web',
      initContainers: [{ name: 'proxy', restartPolicy: 'Always', readinessProbe: probe() }],
      containers: [{ name: 'app' }],
    });
    const status = runningStatus('c-app');
    status.initContainerStatuses = [
      {
        name: 'proxy',
        containerID: 'containerd://c-proxy',
        state: { running: { startedAt: iso(START) } },
        ready: false,
        restartCount: 0,
        image: 'envoy',
        imageID: '',
      },
    ];
    h.manager.updatePodStatus(pod, status);
    await h.clock.advance(0);
    expect(h.recorder.events).toEqual([
      {
        object: {
          kind: 'Pod',
          apiVersion: 'v1',
          name: 'web',
          namespace: 'default',
          uid: 'uid-web',
          fieldPath: 'spec.initContainers{proxy}',
        },
        type: 'Warning',
        reason: 'Unhealthy',
        message: 'Readiness probe failed: connection refused',
      },
    ]);
  });
});
