// Upstream pkg/kubelet/preemption (CriticalPodAdmissionHandler): a critical pod refused only for
// resources is admitted after the kubelet evicts the fewest, least important pods that free them.
import type { Pod } from '@kubelet-ts/api';
import { getPodQOSClass, isCriticalPod, podRequests, preemptable } from '@kubelet-ts/api';
import type { EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, EventType, noopLogger, noopMetrics, podReference } from '@kubelet-ts/common';
import { PREEMPTION_DISRUPTION_MESSAGE, PREEMPTION_MESSAGE, PREEMPTION_REASON, TERMINATION_BY_KUBELET_REASON } from './constants.js';
import { toResource } from './internal/resources.js';
import type { AdmissionFailure, AdmissionFailureHandler, AdmissionFailureOutcome, PodAdmitAttributes } from './types.js';

/** What the handler asks of the kubelet for each pod it preempts (upstream killPodNow with a status function). */
export interface PreemptPodRequest {
  /** The pod's own `terminationGracePeriodSeconds` (0 when unset), as upstream passes no override. */
  gracePeriodSeconds: number;
  reason: string;
  message: string;
  condition: { type: 'DisruptionTarget'; status: 'True'; reason: string; message: string };
}

export interface CriticalPodAdmissionHandlerOptions {
  /** Kills the pod with this terminal status; resolves once its containers are stopped, rejects when that fails. */
  killPod: (pod: Pod, request: PreemptPodRequest) => Promise<void>;
  /** The Warning `Preempting` event on each preempted pod. */
  recorder: EventRecorder;
  /** `kubelet_preemptions{preemption_signal}`. Default: nowhere. */
  metrics?: Metrics;
  logger?: Logger;
}

interface Requirement {
  resourceName: string;
  quantity: number;
}

/** Upstream resource.GetResourceRequest over the allocated resources (v1.34): cpu in millicores, `pods` 1, others in their units. */
function requestOf(pod: Pod, resourceName: string): number {
  if (resourceName === 'pods') return 1;
  let amounts;
  try {
    amounts = toResource(podRequests(pod, { onInvalid: () => undefined, useStatusResources: true }));
  } catch {
    return 0;
  }
  switch (resourceName) {
    case 'cpu':
      return amounts.milliCPU;
    case 'memory':
      return amounts.memory;
    case 'ephemeral-storage':
      return amounts.ephemeralStorage;
    default:
      return amounts.scalar.get(resourceName) ?? 0;
  }
}

/** What is still missing once these pods are gone (upstream admissionRequirementList.subtract). */
function subtract(requirements: readonly Requirement[], pods: readonly Pod[]): Requirement[] {
  const left: Requirement[] = [];
  for (const req of requirements) {
    let quantity = req.quantity;
    for (const pod of pods) {
      quantity -= requestOf(pod, req.resourceName);
      if (quantity <= 0) break;
    }
    if (quantity > 0) left.push({ resourceName: req.resourceName, quantity });
  }
  return left;
}

/** Sum of the squared shares of each requirement the pod leaves unmet: every resource weighs the same. */
function distance(requirements: readonly Requirement[], pod: Pod): number {
  let dist = 0;
  for (const req of requirements) {
    const remaining = req.quantity - requestOf(pod, req.resourceName);
    if (remaining > 0) dist += (remaining / req.quantity) ** 2;
  }
  return dist;
}

/** Upstream smallerResourceRequest: memory first, then cpu; a tie counts as smaller. */
function smallerResourceRequest(a: Pod, b: Pod): boolean {
  for (const resourceName of ['memory', 'cpu']) {
    const ra = requestOf(a, resourceName);
    const rb = requestOf(b, resourceName);
    if (ra !== rb) return ra < rb;
  }
  return true;
}

export function describeRequirements(requirements: readonly Requirement[]): string {
  return `[${requirements.map((r) => `(res: ${r.resourceName}, q: ${r.quantity}), `).join('')}]`;
}

/** Upstream getPodsToPreemptByDistance: the pod closest to the requirements, round after round. */
function preemptByDistance(candidates: readonly Pod[], requirements: Requirement[]): Pod[] {
  const pods = [...candidates];
  const chosen: Pod[] = [];
  while (requirements.length > 0) {
    if (pods.length === 0) throw new Error(`no set of running pods found to reclaim resources: ${describeRequirements(requirements)}`);
    let bestDistance = requirements.length + 1;
    let best = 0;
    pods.forEach((pod, i) => {
      const dist = distance(requirements, pod);
      if (dist < bestDistance || (dist === bestDistance && smallerResourceRequest(pod, pods[best] as Pod))) {
        bestDistance = dist;
        best = i;
      }
    });
    const pod = pods[best] as Pod;
    requirements = subtract(requirements, [pod]);
    chosen.push(pod);
    // Upstream swaps the last pod into the hole: the order of later ties depends on it.
    pods[best] = pods[pods.length - 1] as Pod;
    pods.pop();
  }
  return chosen;
}

/**
 * Upstream getPodsToPreempt: the fewest Guaranteed pods needed if every BestEffort and Burstable pod
 * went, then the fewest Burstable ones, then BestEffort; only pods the new one may preempt.
 */
export function podsToPreempt(pod: Pod, activePods: readonly Pod[], requirements: readonly Requirement[]): Pod[] {
  const byQos = { BestEffort: [] as Pod[], Burstable: [] as Pod[], Guaranteed: [] as Pod[] };
  for (const other of activePods) {
    if (other.metadata.uid !== pod.metadata.uid && preemptable(pod, other)) byQos[getPodQOSClass(other)].push(other);
  }
  const { BestEffort: bestEffort, Burstable: burstable, Guaranteed: guaranteed } = byQos;
  const unmet = subtract(requirements, [...bestEffort, ...burstable, ...guaranteed]);
  if (unmet.length > 0) throw new Error(`no set of running pods found to reclaim resources: ${describeRequirements(unmet)}`);
  const guaranteedToEvict = preemptByDistance(guaranteed, subtract(requirements, [...bestEffort, ...burstable]));
  const burstableToEvict = preemptByDistance(burstable, subtract(requirements, [...bestEffort, ...guaranteedToEvict]));
  const bestEffortToEvict = preemptByDistance(bestEffort, subtract(requirements, [...burstableToEvict, ...guaranteedToEvict]));
  return [...bestEffortToEvict, ...burstableToEvict, ...guaranteedToEvict];
}

/**
 * Upstream NewCriticalPodAdmissionHandler: for a critical pod (static, mirror or priority ≥ 2000000000)
 * refused only for resources, preempt pods that free them — each killed Failed/`Preempting` with a
 * DisruptionTarget condition and a Warning event — and admit it once they are stopped. Any other
 * failure stays; no set of pods that frees enough is an error (UnexpectedAdmissionError upstream).
 */
export function createCriticalPodAdmissionHandler(options: CriticalPodAdmissionHandlerOptions): AdmissionFailureHandler {
  const logger = options.logger ?? noopLogger;
  const preemptions = (options.metrics ?? noopMetrics).counter<'preemption_signal'>({
    name: 'kubelet_preemptions',
    help: 'Cumulative number of pod preemptions by preemption resource',
    labelNames: ['preemption_signal'],
  });
  return {
    handleAdmissionFailure({ pod, otherPods }: PodAdmitAttributes, failures: readonly AdmissionFailure[]): AdmissionFailureOutcome {
      if (!isCriticalPod(pod)) return { failures };
      const others = failures.filter((f) => f.kind !== 'resource');
      if (others.length > 0) return { failures: others };
      const requirements = failures.flatMap((f) =>
        f.kind === 'resource' ? [{ resourceName: f.resourceName, quantity: f.requested - (f.capacity - f.used) }] : [],
      );
      let victims: Pod[];
      try {
        victims = podsToPreempt(pod, otherPods, requirements);
      } catch (err) {
        return { error: `preemption: error finding a set of pods to preempt: ${errorMessage(err)}` };
      }
      logger.info('Attempting to evict pods in order to free up resources', {
        pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
        pods: victims.map((v) => `${v.metadata.namespace}/${v.metadata.name}`),
        insufficientResources: describeRequirements(requirements),
      });
      const signal = requirements[0]?.resourceName ?? '';
      const kills = victims.map(async (victim) => {
        const key = `${victim.metadata.namespace}/${victim.metadata.name}`;
        options.recorder.event(podReference(victim), EventType.Warning, PREEMPTION_REASON, PREEMPTION_MESSAGE);
        try {
          await options.killPod(victim, {
            gracePeriodSeconds: victim.spec.terminationGracePeriodSeconds ?? 0,
            reason: PREEMPTION_REASON,
            message: PREEMPTION_MESSAGE,
            condition: {
              type: 'DisruptionTarget',
              status: 'True',
              reason: TERMINATION_BY_KUBELET_REASON,
              message: PREEMPTION_DISRUPTION_MESSAGE,
            },
          });
        } catch (err) {
          // As upstream: the kill is retried by later syncs; the critical pod is admitted anyway.
          logger.error('Failed to evict pod', { pod: key, err: errorMessage(err) });
          return;
        }
        preemptions.inc({ preemption_signal: signal });
        logger.info('Pod evicted successfully', { pod: key });
      });
      return { failures: [], startAfter: Promise.all(kills).then(() => undefined) };
    },
  };
}
