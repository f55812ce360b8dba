// Upstream status_manager.go mergePodStatus, for the status the kubelet PATCHes over the API's.
import type { Pod, PodCondition, PodStatus } from '@kubelet-ts/api';
import { formatTime } from '@kubelet-ts/api';
import { ConditionReason, KUBELET_CONDITION_TYPES, readinessGateMessages, terminalReadyCondition } from './conditions.js';

/**
 * The top-level status fields the kubelet reports. Any other field of the API's status (set by the
 * scheduler, a DRA driver, the server: nominatedNodeName, resourceClaimStatuses, observedGeneration,
 * resize…) is carried over, so the patch never deletes it. Upstream carries only
 * resourceClaimStatuses over; the others it never has, and its patch would null them.
 */
const KUBELET_STATUS_FIELDS: ReadonlySet<string> = new Set([
  'phase',
  'conditions',
  'message',
  'reason',
  'hostIP',
  'hostIPs',
  'podIP',
  'podIPs',
  'startTime',
  'initContainerStatuses',
  'containerStatuses',
  'ephemeralContainerStatuses',
  'qosClass',
]);

/** Conditions the kubelet may set but shares with others (upstream PodConditionSharedByKubelet). */
const SHARED_CONDITION_TYPES: ReadonlySet<string> = new Set(['DisruptionTarget']);

export interface MergePodStatusOptions {
  /**
   * The pod may still have running containers (upstream ShouldDelayTransitioningPodToTerminal):
   * a terminal phase is then not reported yet.
   */
  couldHaveRunningContainers: boolean;
  /** For the transition time of a condition whose status the merge changes (ms). */
  now: number;
}

const isTerminal = (phase: string | undefined): boolean => phase === 'Succeeded' || phase === 'Failed';

/** `condition` with the API's transition time when the API shows the same status, else `now`. */
function withTransitionTime(condition: PodCondition, api: readonly PodCondition[], now: number): PodCondition {
  const old = api.find((c) => c.type === condition.type);
  const lastTransitionTime =
    old !== undefined && old.status === condition.status && old.lastTransitionTime ? old.lastTransitionTime : formatTime(now);
  return { ...condition, lastTransitionTime };
}

function replaceOrAppend(conditions: PodCondition[], condition: PodCondition): void {
  const i = conditions.findIndex((c) => c.type === condition.type);
  if (i >= 0) conditions[i] = condition;
  else conditions.push(condition);
}

/**
 * The Ready condition again, against the API's current readiness-gate conditions: another
 * component may have changed a gate after the kubelet generated its status. Only when the
 * containers are ready, and the result differs from the kubelet's.
 */
function reevaluateReadinessGates(pod: Pick<Pod, 'spec'>, conditions: PodCondition[], kubeletReady: PodCondition, now: number): void {
  if ((pod.spec.readinessGates ?? []).length === 0) return;
  if (conditions.find((c) => c.type === 'ContainersReady')?.status !== 'True') return;
  const messages = readinessGateMessages(pod, conditions);
  const ready: PodCondition =
    messages.length > 0
      ? { type: 'Ready', status: 'False', reason: ConditionReason.ReadinessGatesNotReady, message: messages.join(', ') }
      : { type: 'Ready', status: 'True' };
  if (ready.status === kubeletReady.status && ready.message === kubeletReady.message) return;
  const lastTransitionTime =
    ready.status === kubeletReady.status && kubeletReady.lastTransitionTime !== undefined
      ? kubeletReady.lastTransitionTime
      : formatTime(now);
  replaceOrAppend(conditions, {
    ...ready,
    ...(kubeletReady.lastProbeTime !== undefined ? { lastProbeTime: kubeletReady.lastProbeTime } : {}),
    lastTransitionTime,
  });
}

/**
 * Upstream mergePodStatus: the status to send, from the API's status and the kubelet's. Conditions
 * not owned by the kubelet are kept from the API (readiness-gate conditions, DisruptionTarget set by
 * others, any other type), the kubelet-owned ones (PodReadyToStartContainers, Initialized, Ready,
 * ContainersReady) are the kubelet's. PodScheduled is the API's when it has one (the scheduler's,
 * with its transition time; upstream's kubelet-owned PodScheduled is always True with the API's
 * transition time, so the result is the same), else the kubelet's. The kubelet's DisruptionTarget
 * goes out only with the pod's move to a terminal phase. A terminal phase is not reported while
 * containers may still run (phase, reason and message stay the API's), and a terminal phase makes
 * Ready and ContainersReady False. Ready is checked again against the API's readiness gates.
 * Inputs are not modified.
 */
export function mergePodStatus(
  pod: Pick<Pod, 'spec'>,
  apiStatus: PodStatus,
  kubeletStatus: PodStatus,
  options: MergePodStatusOptions,
): PodStatus {
  const { now } = options;
  const api = apiStatus.conditions ?? [];
  const merged: PodStatus = {};
  for (const [key, value] of Object.entries(apiStatus)) {
    if (!KUBELET_STATUS_FIELDS.has(key)) (merged as Record<string, unknown>)[key] = structuredClone(value);
  }
  Object.assign(merged, structuredClone(kubeletStatus));

  const conditions: PodCondition[] = api.filter((c) => !KUBELET_CONDITION_TYPES.has(c.type)).map((c) => ({ ...c }));
  const transitioningToTerminal = !isTerminal(apiStatus.phase) && isTerminal(kubeletStatus.phase);
  for (const c of kubeletStatus.conditions ?? []) {
    if (c.type === 'PodScheduled') {
      const scheduled = api.find((a) => a.type === 'PodScheduled');
      conditions.push({ ...(scheduled ?? c) });
    } else if (KUBELET_CONDITION_TYPES.has(c.type)) {
      conditions.push({ ...c });
    } else if (SHARED_CONDITION_TYPES.has(c.type) && transitioningToTerminal && !options.couldHaveRunningContainers) {
      replaceOrAppend(conditions, withTransitionTime(c, api, now));
    }
  }
  const kubeletReady = conditions.find((c) => c.type === 'Ready');
  if (kubeletReady !== undefined && !isTerminal(kubeletStatus.phase)) reevaluateReadinessGates(pod, conditions, kubeletReady, now);
  merged.conditions = conditions;

  if (transitioningToTerminal && options.couldHaveRunningContainers) {
    for (const key of ['phase', 'reason', 'message'] as const) {
      if (apiStatus[key] !== undefined) merged[key] = apiStatus[key];
      else delete merged[key];
    }
  }
  // Never a terminal phase with Ready=True (upstream issue 108594): both become False at once.
  if (isTerminal(merged.phase) && conditions.some((c) => (c.type === 'Ready' || c.type === 'ContainersReady') && c.status === 'True')) {
    for (const type of ['ContainersReady', 'Ready'] as const) {
      const current = conditions.find((c) => c.type === type);
      const next = terminalReadyCondition(type, merged.phase as string);
      const keepTime = current !== undefined && current.status === next.status && current.lastTransitionTime !== undefined;
      replaceOrAppend(conditions, {
        ...next,
        ...(current?.lastProbeTime !== undefined ? { lastProbeTime: current.lastProbeTime } : {}),
        lastTransitionTime: keepTime ? (current.lastTransitionTime as string) : formatTime(now),
      });
    }
  }
  return merged;
}
