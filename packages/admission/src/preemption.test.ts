import type { Pod } from '@kubelet-ts/api';
import { ConfigSourceAnnotationKey, PodSchema } from '@kubelet-ts/api';
import { RecordingEventRecorder, RecordingLogger, RecordingMetrics } from '@kubelet-ts/common/testing';
import { createCriticalPodAdmissionHandler, createPredicateAdmitHandler } from './index.js';
import type { AdmissionFailure, AdmissionFailureOutcome, PreemptPodRequest } from './index.js';
import { podsToPreempt } from './preemption.js';
import { testNode } from './testing/index.js';

const Mi = 1024 * 1024;

interface PodOptions {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
  priority?: number;
  static?: boolean;
  grace?: number;
}

function pod(name: string, o: PodOptions = {}): Pod {
  const resources = { ...(o.requests ? { requests: o.requests } : {}), ...(o.limits ? { limits: o.limits } : {}) };
  return PodSchema.parse({
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      ...(o.static === true ? { annotations: { [ConfigSourceAnnotationKey]: 'file' } } : {}),
    },
    spec: {
      containers: [{ name: 'app', image: 'busybox', resources }],
      ...(o.priority !== undefined ? { priority: o.priority } : {}),
      ...(o.grace !== undefined ? { terminationGracePeriodSeconds: o.grace } : {}),
    },
  });
}

// The QoS classes side by side, small and large.
const bestEffort = pod('best-effort');
const burstable = pod('burstable', { requests: { cpu: '100m', memory: '100Mi' } });
const highBurstable = pod('high-request-burstable', { requests: { cpu: '300m', memory: '300Mi' } });
const guaranteed = pod('guaranteed', { requests: { cpu: '100m', memory: '100Mi' }, limits: { cpu: '100m', memory: '100Mi' } });
const highGuaranteed = pod('high-request-guaranteed', {
  requests: { cpu: '300m', memory: '300Mi' },
  limits: { cpu: '300m', memory: '300Mi' },
});
const critical = pod('critical', { static: true, requests: { memory: '1Gi' } });
const all = [bestEffort, burstable, highBurstable, guaranteed, highGuaranteed];
const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata.name);

describe('podsToPreempt (upstream getPodsToPreempt)', () => {
  it('frees memory with the one Burstable pod whose request covers it', () => {
    expect(names(podsToPreempt(critical, all, [{ resourceName: 'memory', quantity: 250 * Mi }]))).toEqual(['high-request-burstable']);
  });

  it('takes a Guaranteed pod only when every BestEffort and Burstable pod together would not do', () => {
    expect(names(podsToPreempt(critical, all, [{ resourceName: 'memory', quantity: 550 * Mi }]))).toEqual([
      'high-request-burstable',
      'high-request-guaranteed',
    ]);
  });

  it('weighs cpu and memory together: the pod nearest to both requirements', () => {
    const reqs = [
      { resourceName: 'cpu', quantity: 250 },
      { resourceName: 'memory', quantity: 90 * Mi },
    ];
    expect(names(podsToPreempt(critical, [bestEffort, burstable, highBurstable], reqs))).toEqual(['high-request-burstable']);
  });

  it('for a pod slot takes one BestEffort pod, the last of equals (ties go to the smaller request, equal counts as smaller)', () => {
    const second = pod('best-effort-2');
    expect(names(podsToPreempt(critical, [bestEffort, second, burstable], [{ resourceName: 'pods', quantity: 1 }]))).toEqual([
      'best-effort-2',
    ]);
    expect(names(podsToPreempt(critical, [burstable, highBurstable], [{ resourceName: 'pods', quantity: 1 }]))).toEqual(['burstable']);
  });

  it('never preempts a critical pod or the pod itself, and says what cannot be freed', () => {
    const otherCritical = pod('other-critical', { priority: 2_000_000_000, requests: { memory: '2Gi' } });
    expect(() => podsToPreempt(critical, [critical, otherCritical, burstable], [{ resourceName: 'memory', quantity: 500 * Mi }])).toThrow(
      `no set of running pods found to reclaim resources: [(res: memory, q: ${400 * Mi}), ]`,
    );
  });

  it('a pod of higher priority may preempt one of lower priority; equal priority may not', () => {
    const high = pod('high', { priority: 1000 });
    const low = pod('low', { priority: 10, requests: { cpu: '1' } });
    const same = pod('same', { priority: 1000, requests: { cpu: '1' } });
    expect(names(podsToPreempt(high, [same, low], [{ resourceName: 'cpu', quantity: 500 }]))).toEqual(['low']);
  });
});

/** The handler with a kill that records and resolves (or fails for the named pods). */
function setUp(failFor: string[] = []) {
  const killed: Array<{ name: string; request: PreemptPodRequest }> = [];
  const recorder = new RecordingEventRecorder();
  const metrics = new RecordingMetrics();
  const logger = new RecordingLogger();
  const handler = createCriticalPodAdmissionHandler({
    killPod: (p, request) => {
      killed.push({ name: p.metadata.name, request });
      return failFor.includes(p.metadata.name) ? Promise.reject(new Error('timeout waiting to kill pod')) : Promise.resolve();
    },
    recorder,
    metrics,
    logger,
  });
  return { handler, killed, recorder, metrics, logger };
}

const short = (resourceName: string, requested: number, used: number, capacity: number): AdmissionFailure => ({
  kind: 'resource',
  resourceName,
  requested,
  used,
  capacity,
});

describe('createCriticalPodAdmissionHandler', () => {
  it('leaves the failures of a pod that is not critical', () => {
    const { handler, killed } = setUp();
    const failures = [short('memory', 500 * Mi, 0, 100 * Mi)];
    expect(handler.handleAdmissionFailure({ pod: burstable, otherPods: all }, failures)).toEqual({ failures });
    expect(killed).toEqual([]);
  });

  it('keeps only the failures that are not resources, preempting nothing', () => {
    const { handler, killed } = setUp();
    const ports: AdmissionFailure = { kind: 'predicate', name: 'NodePorts' };
    expect(handler.handleAdmissionFailure({ pod: critical, otherPods: all }, [short('cpu', 1000, 500, 1000), ports])).toEqual({
      failures: [ports],
    });
    expect(killed).toEqual([]);
  });

  it('kills the chosen pods Failed/Preempting with a DisruptionTarget condition, an event each, counted by the first resource', async () => {
    const { handler, killed, recorder, metrics } = setUp();
    // 550Mi short: 1Gi wanted, 474Mi free.
    const outcome = handler.handleAdmissionFailure({ pod: critical, otherPods: all }, [short('memory', 1024 * Mi, 2000 * Mi, 2474 * Mi)]);
    expect(outcome).toEqual({ failures: [], startAfter: expect.any(Promise) });
    await (outcome as { startAfter: Promise<void> }).startAfter;
    expect(killed.map((k) => k.name)).toEqual(['high-request-burstable', 'high-request-guaranteed']);
    expect(killed[0]?.request).toEqual({
      gracePeriodSeconds: 0,
      reason: 'Preempting',
      message: 'Preempted in order to admit critical pod',
      condition: {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'TerminationByKubelet',
        message: 'Pod was preempted by Kubelet to accommodate a critical pod.',
      },
    });
    expect(recorder.lines()).toEqual([
      'Warning Preempting Preempted in order to admit critical pod',
      'Warning Preempting Preempted in order to admit critical pod',
    ]);
    expect(recorder.events[0]?.object).toMatchObject({ kind: 'Pod', name: 'high-request-burstable', uid: 'uid-high-request-burstable' });
    expect(metrics.value('kubelet_preemptions', { preemption_signal: 'memory' })).toBe(2);
  });

  it("gives the preempted pod's own grace period", async () => {
    const { handler, killed } = setUp();
    const graceful = pod('graceful', { grace: 45 });
    const outcome = handler.handleAdmissionFailure({ pod: critical, otherPods: [graceful] }, [short('pods', 1, 110, 110)]);
    await (outcome as { startAfter: Promise<void> }).startAfter;
    expect(killed.map((k) => [k.name, k.request.gracePeriodSeconds])).toEqual([['graceful', 45]]);
  });

  it('a kill that fails is logged and not counted; the pod is admitted all the same', async () => {
    const { handler, metrics, logger } = setUp(['high-request-burstable']);
    const outcome = handler.handleAdmissionFailure({ pod: critical, otherPods: all }, [short('memory', 1024 * Mi, 2000 * Mi, 2774 * Mi)]);
    await expect((outcome as { startAfter: Promise<void> }).startAfter).resolves.toBeUndefined();
    expect(metrics.value('kubelet_preemptions', { preemption_signal: 'memory' })).toBeUndefined();
    expect(logger.find('Failed to evict pod').map((r) => r.fields['pod'])).toEqual(['default/high-request-burstable']);
  });

  it('an error when no set of pods frees enough', () => {
    const { handler, killed } = setUp();
    const outcome: AdmissionFailureOutcome = handler.handleAdmissionFailure({ pod: critical, otherPods: [bestEffort] }, [
      short('memory', 1024 * Mi, 0, 100 * Mi),
    ]);
    expect(outcome).toEqual({
      error: `preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: memory, q: ${924 * Mi}), ]`,
    });
    expect(killed).toEqual([]);
  });
});

describe('the predicate handler with critical pod preemption', () => {
  const node = testNode({ allocatable: { cpu: '1', memory: '1Gi', pods: '3' } });
  const wide = pod('wide', { requests: { cpu: '800m' } });

  it('admits a static pod over allocatable cpu once a pod is preempted; a regular pod is still OutOfcpu', async () => {
    const { handler, killed } = setUp();
    const predicate = createPredicateAdmitHandler({ getNode: () => node, admissionFailureHandler: handler });
    const staticPod = pod('static', { static: true, requests: { cpu: '500m' } });
    const result = predicate.admit({ pod: staticPod, otherPods: [wide] });
    expect(result).toEqual({ admit: true, startAfter: expect.any(Promise) });
    await result.startAfter;
    expect(killed.map((k) => k.name)).toEqual(['wide']);
    expect(predicate.admit({ pod: pod('regular', { requests: { cpu: '500m' } }), otherPods: [wide] })).toEqual({
      admit: false,
      reason: 'OutOfcpu',
      message: "Node didn't have enough resource: cpu, requested: 500, used: 800, capacity: 1000",
    });
  });

  it('refuses UnexpectedAdmissionError when nothing can be preempted', () => {
    const { handler } = setUp();
    const predicate = createPredicateAdmitHandler({ getNode: () => node, admissionFailureHandler: handler });
    const otherStatic = pod('other-static', { static: true, requests: { cpu: '800m' } });
    expect(predicate.admit({ pod: pod('static', { static: true, requests: { cpu: '500m' } }), otherPods: [otherStatic] })).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message:
        'Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 300), ]',
    });
  });
});
