import type { Pod, PodStatus } from '@kubelet-ts/api';
import { FakeClock, RecordingMetrics } from '@kubelet-ts/common/testing';
import type { RuntimeContainerStatus } from '@kubelet-ts/container-runtime';
import { createPodStartupLatencyTracker, recordInitContainerTimes } from './pod-startup-latency.js';
import { emptyRuntimePodStatus } from './pod-cache.js';

const T0 = Date.UTC(2026, 0, 1);
const SLI = 'kubelet_pod_start_sli_duration_seconds';
const TOTAL = 'kubelet_pod_start_total_duration_seconds';
const FIRST_NETWORK = 'kubelet_first_network_pod_start_sli_duration_seconds';

function apiPod(name: string, spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', uid: `uid-${name}`, creationTimestamp: new Date(T0).toISOString().replace('.000', '') },
    spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec },
    status: { phase: 'Pending' },
  };
}
const running: PodStatus = {
  phase: 'Running',
  startTime: '2026-01-01T00:00:01Z',
  containerStatuses: [
    { name: 'app', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:02Z' } } },
  ],
};
const withStatus = (pod: Pod, status: PodStatus): Pod => ({ ...pod, status });

function setup() {
  const clock = new FakeClock(T0);
  const metrics = new RecordingMetrics();
  const tracker = createPodStartupLatencyTracker({ clock, metrics });
  /** The pod as the kubelet's status showed it running at `statusMs`, then seen so on the watch at `watchMs`. */
  const start = (pod: Pod, statusMs: number, watchMs: number): void => {
    clock.setNow(T0 + statusMs);
    tracker.recordStatusUpdated(withStatus(pod, running));
    tracker.observedPodOnWatch(withStatus(pod, running), T0 + watchMs);
  };
  return { clock, metrics, tracker, start };
}

describe('pod startup latency tracker (upstream PodStartupLatencyTracker)', () => {
  it('observes creation to the watch seeing every container started, less the image pulls, once', () => {
    const { clock, metrics, tracker, start } = setup();
    const pod = apiPod('web');
    tracker.observedPodOnWatch(pod, T0);
    clock.setNow(T0 + 500);
    tracker.recordImageStartedPulling('uid-web');
    clock.setNow(T0 + 1_500);
    tracker.recordImageFinishedPulling('uid-web');
    // Seen running on the watch before the kubelet's own status said so: not yet.
    tracker.observedPodOnWatch(withStatus(pod, running), T0 + 1_800);
    expect(metrics.observations(TOTAL)).toEqual([]);
    start(pod, 2_500, 3_000);
    start(pod, 4_000, 5_000);
    expect(metrics.observations(TOTAL)).toEqual([3]);
    // 0.5 s before the pull and 1.5 s after it.
    expect(metrics.observations(SLI)).toEqual([2]);
    expect(metrics.value(FIRST_NETWORK)).toBe(2);
    expect(metrics.buckets(SLI)?.slice(0, 4)).toEqual([0.5, 1, 2, 3]);
    expect(metrics.buckets(TOTAL)?.at(-1)).toBe(3600);
  });

  it('leaves out the init containers too, and the gap between the pulls and them counts', () => {
    const { clock, metrics, tracker, start } = setup();
    const pod = apiPod('init');
    tracker.observedPodOnWatch(pod, T0);
    clock.setNow(T0 + 500);
    tracker.recordImageStartedPulling('uid-init');
    clock.setNow(T0 + 1_500);
    tracker.recordImageFinishedPulling('uid-init');
    tracker.recordInitContainerStarted('uid-init', T0 + 2_000);
    tracker.recordInitContainerFinished('uid-init', T0 + 4_000);
    start(pod, 4_500, 5_000);
    // 0.5 s before the pull, 0.5 s between the pull and the init container, 1 s after it.
    expect(metrics.observations(SLI)).toEqual([2]);
    expect(metrics.observations(TOTAL)).toEqual([5]);
  });

  it('does not track a pod already started when first seen, nor one that finished; a pod removed is forgotten', () => {
    const { metrics, tracker, start } = setup();
    const before = apiPod('before');
    tracker.observedPodOnWatch(withStatus(before, { phase: 'Pending', startTime: '2025-12-31T23:00:00Z' }), T0);
    start(before, 1_000, 2_000);
    const done = apiPod('done');
    tracker.observedPodOnWatch(done, T0);
    tracker.observedPodOnWatch(withStatus(done, { phase: 'Succeeded' }), T0 + 500);
    start(done, 1_000, 2_000);
    const gone = apiPod('gone');
    tracker.observedPodOnWatch(gone, T0);
    tracker.deletePodStartupState('uid-gone');
    start(gone, 1_000, 2_000);
    expect(metrics.observations(TOTAL)).toEqual([]);
  });

  it('leaves stateful pods out of the SLI only; the first pod with its own network sets the first-network gauge', () => {
    const { metrics, tracker, start } = setup();
    const stateful = apiPod('stateful', { volumes: [{ name: 'data', hostPath: { path: '/data' } }] });
    const host = apiPod('host', { hostNetwork: true, volumes: [{ name: 'token', projected: { sources: [] } }] });
    const second = apiPod('second');
    const third = apiPod('third', {
      volumes: [{ name: 'inline', csi: { driver: 'x', volumeAttributes: { 'csi.storage.k8s.io/ephemeral': 'true' } } }],
    });
    for (const pod of [stateful, host, second, third]) tracker.observedPodOnWatch(pod, T0);
    start(stateful, 1_000, 1_000);
    start(host, 2_000, 2_000);
    start(second, 3_000, 3_000);
    start(third, 4_000, 4_000);
    expect(metrics.observations(TOTAL)).toEqual([1, 2, 3, 4]);
    expect(metrics.observations(SLI)).toEqual([2, 3, 4]);
    expect(metrics.value(FIRST_NETWORK)).toBe(3);
  });

  it("takes the init containers' runs from the runtime's status, sidecars left out", () => {
    const { metrics, tracker, start } = setup();
    const pod = apiPod('runs', {
      initContainers: [
        { name: 'setup', image: 'busybox' },
        { name: 'sidecar', image: 'busybox', restartPolicy: 'Always' },
      ],
    });
    tracker.observedPodOnWatch(pod, T0);
    const container = (name: string, c: Partial<RuntimeContainerStatus>): RuntimeContainerStatus => ({
      id: name,
      name,
      state: 'running',
      createdAt: T0,
      image: 'busybox',
      imageRef: '',
      hash: '',
      restartCount: 0,
      ...c,
    });
    recordInitContainerTimes(tracker, pod, {
      ...emptyRuntimePodStatus('uid-runs'),
      containers: [
        container('sidecar', { startedAt: T0 + 500 }),
        container('setup', { state: 'exited', startedAt: T0 + 1_000, finishedAt: T0 + 3_000 }),
      ],
    });
    start(pod, 3_500, 4_000);
    // 1 s before the init container, 1 s after it; the sidecar's start does not count.
    expect(metrics.observations(SLI)).toEqual([2]);
  });
});
