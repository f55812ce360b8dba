import type { PodCondition, PodStatus } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { mergePodStatus } from './merge-pod-status.js';

const NOW = Date.UTC(2026, 0, 1, 0, 10, 0);
const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:01:00Z';
const T_NOW = '2026-01-01T00:10:00Z';

const pod = newPod({ name: 'web', spec: { readinessGates: [{ conditionType: 'example.com/lb' }] } });
const plain = newPod({ name: 'plain' });

const cond = (type: string, status: string, extra: Partial<PodCondition> = {}): PodCondition => ({
  type,
  status,
  lastTransitionTime: T1,
  ...extra,
});

const kubeletRunning = (ready: 'True' | 'False', extra: PodCondition[] = []): PodStatus => ({
  phase: 'Running',
  conditions: [
    cond('PodReadyToStartContainers', 'True'),
    cond('Initialized', 'True'),
    cond('Ready', ready),
    cond('ContainersReady', 'True'),
    cond('PodScheduled', 'True', { lastTransitionTime: T1 }),
    ...extra,
  ],
});

const types = (s: PodStatus): string[] => (s.conditions ?? []).map((c) => `${c.type}=${c.status}`);
const find = (s: PodStatus, type: string): PodCondition | undefined => s.conditions?.find((c) => c.type === type);

describe('mergePodStatus', () => {
  it('keeps the conditions others own and replaces the kubelet-owned ones', () => {
    const api: PodStatus = {
      phase: 'Pending',
      conditions: [
        cond('example.com/lb', 'True', { lastTransitionTime: T0 }),
        cond('Ready', 'False', { reason: 'ContainersNotReady' }),
        cond('DisruptionTarget', 'True', { reason: 'PreemptionByScheduler', lastTransitionTime: T0 }),
        cond('PodScheduled', 'True', { lastTransitionTime: T0 }),
      ],
    };
    const merged = mergePodStatus(pod, api, kubeletRunning('True'), { couldHaveRunningContainers: true, now: NOW });
    expect(types(merged)).toEqual([
      'example.com/lb=True',
      'DisruptionTarget=True',
      'PodReadyToStartContainers=True',
      'Initialized=True',
      'Ready=True',
      'ContainersReady=True',
      'PodScheduled=True',
    ]);
    expect(find(merged, 'DisruptionTarget')?.reason).toBe('PreemptionByScheduler');
    expect(find(merged, 'Ready')?.reason).toBeUndefined();
  });

  it("keeps the scheduler's PodScheduled with its transition time; the kubelet's only when the API has none", () => {
    const scheduled = cond('PodScheduled', 'True', { lastTransitionTime: T0, observedGeneration: 1 });
    const withScheduler = mergePodStatus(plain, { conditions: [scheduled] }, kubeletRunning('True'), {
      couldHaveRunningContainers: true,
      now: NOW,
    });
    expect(find(withScheduler, 'PodScheduled')).toEqual(scheduled);
    const bound = mergePodStatus(plain, { phase: 'Pending' }, kubeletRunning('True'), { couldHaveRunningContainers: true, now: NOW });
    expect(find(bound, 'PodScheduled')).toEqual(cond('PodScheduled', 'True', { lastTransitionTime: T1 }));
  });

  it('holds a terminal phase back while containers may still run', () => {
    const api: PodStatus = { phase: 'Running', reason: 'R', message: 'm' };
    const kubelet: PodStatus = { phase: 'Failed', reason: 'Evicted', message: 'out of memory' };
    const held = mergePodStatus(plain, api, kubelet, { couldHaveRunningContainers: true, now: NOW });
    expect([held.phase, held.reason, held.message]).toEqual(['Running', 'R', 'm']);
    const sent = mergePodStatus(plain, api, kubelet, { couldHaveRunningContainers: false, now: NOW });
    expect([sent.phase, sent.reason, sent.message]).toEqual(['Failed', 'Evicted', 'out of memory']);
    const noReason = mergePodStatus(plain, { phase: 'Running' }, kubelet, { couldHaveRunningContainers: true, now: NOW });
    expect(noReason).not.toHaveProperty('reason');
    expect(noReason).not.toHaveProperty('message');
  });

  it('never reports a terminal phase with Ready or ContainersReady True', () => {
    const kubelet: PodStatus = { phase: 'Succeeded', conditions: [cond('Ready', 'True'), cond('ContainersReady', 'True')] };
    const merged = mergePodStatus(plain, { phase: 'Running' }, kubelet, { couldHaveRunningContainers: false, now: NOW });
    expect(merged.conditions).toEqual([
      { type: 'Ready', status: 'False', reason: 'PodCompleted', lastTransitionTime: T_NOW },
      { type: 'ContainersReady', status: 'False', reason: 'PodCompleted', lastTransitionTime: T_NOW },
    ]);
    const failed = mergePodStatus(plain, {}, { ...kubelet, phase: 'Failed' }, { couldHaveRunningContainers: false, now: NOW });
    expect(find(failed, 'Ready')?.reason).toBe('PodFailed');
  });

  it("sends the kubelet's DisruptionTarget only with the move to a terminal phase", () => {
    const disruption = cond('DisruptionTarget', 'True', { reason: 'TerminationByKubelet', lastTransitionTime: T0 });
    const kubelet: PodStatus = { phase: 'Failed', conditions: [disruption] };
    const early = mergePodStatus(plain, { phase: 'Running' }, kubelet, { couldHaveRunningContainers: true, now: NOW });
    expect(find(early, 'DisruptionTarget')).toBeUndefined();
    const final = mergePodStatus(plain, { phase: 'Running' }, kubelet, { couldHaveRunningContainers: false, now: NOW });
    // The transition time is now: the condition was held back until the containers stopped.
    expect(find(final, 'DisruptionTarget')).toEqual({ ...disruption, lastTransitionTime: T_NOW });
  });

  it('checks Ready again against the readiness gates the API holds now', () => {
    const gateFalse: PodStatus = { conditions: [cond('example.com/lb', 'False')] };
    const notReady = mergePodStatus(pod, gateFalse, kubeletRunning('True'), { couldHaveRunningContainers: true, now: NOW });
    expect(find(notReady, 'Ready')).toEqual({
      type: 'Ready',
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: 'the status of pod readiness gate "example.com/lb" is not "True", but False',
      lastTransitionTime: T_NOW,
    });
    const missing = mergePodStatus(pod, {}, kubeletRunning('True'), { couldHaveRunningContainers: true, now: NOW });
    expect(find(missing, 'Ready')?.message).toBe('corresponding condition of pod readiness gate "example.com/lb" does not exist.');
    // The gate turned True after the kubelet generated its status: Ready is True at once.
    const gateTrue: PodStatus = { conditions: [cond('example.com/lb', 'True')] };
    const ready = mergePodStatus(pod, gateTrue, kubeletRunning('False'), { couldHaveRunningContainers: true, now: NOW });
    expect(find(ready, 'Ready')).toEqual({ type: 'Ready', status: 'True', lastTransitionTime: T_NOW });
    // Without ready containers the gates change nothing.
    const unready = kubeletRunning('False');
    (unready.conditions as PodCondition[])[3] = cond('ContainersReady', 'False');
    expect(find(mergePodStatus(pod, gateTrue, unready, { couldHaveRunningContainers: true, now: NOW }), 'Ready')?.status).toBe('False');
  });

  it("carries the API's fields the kubelet does not report, and modifies no input", () => {
    const api: PodStatus = { phase: 'Pending', nominatedNodeName: 'n1', observedGeneration: 3, podIP: '10.0.0.9' };
    const kubelet: PodStatus = kubeletRunning('True');
    const apiCopy = structuredClone(api);
    const kubeletCopy = structuredClone(kubelet);
    const merged = mergePodStatus(plain, api, kubelet, { couldHaveRunningContainers: true, now: NOW });
    expect(merged.nominatedNodeName).toBe('n1');
    expect(merged.observedGeneration).toBe(3);
    // podIP is the kubelet's: absent from its status means absent.
    expect(merged).not.toHaveProperty('podIP');
    expect(api).toEqual(apiCopy);
    expect(kubelet).toEqual(kubeletCopy);
  });
});
