// Upstream pkg/kubelet/status/generate.go: the kubelet-owned pod conditions.
import type { Container, ContainerStatus, Pod, PodCondition } from '@kubelet-ts/api';
import { formatTime, isRestartableInitContainer } from '@kubelet-ts/api';

/** Condition reasons written by the kubelet (status/generate.go). */
export const ConditionReason = {
  UnknownContainerStatuses: 'UnknownContainerStatuses',
  PodCompleted: 'PodCompleted',
  PodFailed: 'PodFailed',
  ContainersNotReady: 'ContainersNotReady',
  ContainersNotInitialized: 'ContainersNotInitialized',
  ReadinessGatesNotReady: 'ReadinessGatesNotReady',
} as const;

/** The conditions the kubelet owns; any other condition in the pod's status is preserved. */
export const KUBELET_CONDITION_TYPES: ReadonlySet<string> = new Set([
  'PodScheduled',
  'PodReadyToStartContainers',
  'Initialized',
  'ContainersReady',
  'Ready',
]);

/** Go's `%s` of a []string: "[a b]". */
function goList(names: string[]): string {
  return `[${names.join(' ')}]`;
}

function find(statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined {
  return statuses.find((s) => s.name === name);
}

/** Upstream HasAnyRegularContainerStarted: a regular container runs, ran, or has run before. */
export function hasAnyRegularContainerStarted(pod: Pod, statuses: readonly ContainerStatus[]): boolean {
  const names = new Set(pod.spec.containers.map((c) => c.name));
  return statuses.some(
    (s) =>
      names.has(s.name) && (s.state?.running !== undefined || s.state?.terminated !== undefined || s.lastState?.terminated !== undefined),
  );
}

/** Upstream generate{ContainersReady,PodReady}ConditionForTerminalPhase: False, PodCompleted or PodFailed. */
export function terminalReadyCondition(type: 'ContainersReady' | 'Ready', phase: string): PodCondition {
  return { type, status: 'False', reason: phase === 'Failed' ? ConditionReason.PodFailed : ConditionReason.PodCompleted };
}

export function generateContainersReadyCondition(pod: Pod, statuses: readonly ContainerStatus[] | undefined, phase: string): PodCondition {
  if (statuses === undefined) return { type: 'ContainersReady', status: 'False', reason: ConditionReason.UnknownContainerStatuses };
  const unknown: string[] = [];
  const unready: string[] = [];
  const consider = (c: Container): void => {
    const s = find(statuses, c.name);
    if (s === undefined) unknown.push(c.name);
    else if (!s.ready) unready.push(c.name);
  };
  for (const c of pod.spec.initContainers ?? []) if (isRestartableInitContainer(c)) consider(c);
  for (const c of pod.spec.containers) consider(c);
  if ((phase === 'Succeeded' && unknown.length === 0) || phase === 'Failed') return terminalReadyCondition('ContainersReady', phase);
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) {
    return { type: 'ContainersReady', status: 'False', reason: ConditionReason.ContainersNotReady, message: messages.join(', ') };
  }
  return { type: 'ContainersReady', status: 'True' };
}

/**
 * Why the pod's readiness gates hold it back (upstream GeneratePodReadyCondition's messages): one
 * message per gate whose condition is missing or not True; empty when every gate is True.
 */
export function readinessGateMessages(pod: Pick<Pod, 'spec'>, conditions: readonly PodCondition[]): string[] {
  const messages: string[] = [];
  for (const gate of pod.spec.readinessGates ?? []) {
    const c = conditions.find((x) => x.type === gate.conditionType);
    if (c === undefined) messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    else if (c.status !== 'True') messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${c.status}`);
  }
  return messages;
}

export function generatePodReadyCondition(
  pod: Pod,
  conditions: readonly PodCondition[],
  statuses: readonly ContainerStatus[] | undefined,
  phase: string,
): PodCondition {
  const containersReady = generateContainersReadyCondition(pod, statuses, phase);
  if (containersReady.status !== 'True') {
    return {
      type: 'Ready',
      status: containersReady.status,
      ...(containersReady.reason !== undefined ? { reason: containersReady.reason } : {}),
      ...(containersReady.message !== undefined ? { message: containersReady.message } : {}),
    };
  }
  const messages = readinessGateMessages(pod, conditions);
  if (messages.length > 0) {
    return { type: 'Ready', status: 'False', reason: ConditionReason.ReadinessGatesNotReady, message: messages.join(', ') };
  }
  return { type: 'Ready', status: 'True' };
}

export function generatePodInitializedCondition(pod: Pod, statuses: readonly ContainerStatus[] | undefined, phase: string): PodCondition {
  const inits = pod.spec.initContainers ?? [];
  if (statuses === undefined && inits.length > 0) {
    return { type: 'Initialized', status: 'False', reason: ConditionReason.UnknownContainerStatuses };
  }
  const all = statuses ?? [];
  const unknown: string[] = [];
  const incomplete: string[] = [];
  for (const c of inits) {
    const s = find(all, c.name);
    if (s === undefined) {
      unknown.push(c.name);
      continue;
    }
    // A sidecar counts once started; a regular init container once it succeeded (its `ready`).
    const initialized = isRestartableInitContainer(c) ? s.started === true : s.ready;
    if (!initialized) incomplete.push(c.name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) {
    return { type: 'Initialized', status: 'True', reason: ConditionReason.PodCompleted };
  }
  if (hasAnyRegularContainerStarted(pod, all)) return { type: 'Initialized', status: 'True' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (incomplete.length > 0) messages.push(`containers with incomplete status: ${goList(incomplete)}`);
  if (messages.length > 0) {
    return { type: 'Initialized', status: 'False', reason: ConditionReason.ContainersNotInitialized, message: messages.join(', ') };
  }
  return { type: 'Initialized', status: 'True' };
}

/**
 * Upstream updateLastTransitionTime, for every condition that has none: the previous status's
 * time while the condition's status is unchanged, else now.
 */
export function updateLastTransitionTimes(
  conditions: readonly PodCondition[],
  previous: readonly PodCondition[],
  now: number,
): PodCondition[] {
  return conditions.map((c) => {
    if (c.lastTransitionTime !== undefined) return c;
    const old = previous.find((p) => p.type === c.type);
    const lastTransitionTime =
      old !== undefined && old.status === c.status && old.lastTransitionTime !== undefined ? old.lastTransitionTime : formatTime(now);
    return { ...c, lastTransitionTime };
  });
}
