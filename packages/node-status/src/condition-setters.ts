// Upstream pkg/kubelet/nodestatus MemoryPressureCondition, DiskPressureCondition,
// PIDPressureCondition and ReadyCondition: each updates its condition of the node in place (a new
// one is appended), moves lastHeartbeatTime every time and lastTransitionTime only on a change of
// status, and records the transition as a node event.
import { EventReason, formatTime, Reason } from '@kubelet-ts/api';
import type { Node, NodeCondition, NodeStatus } from '@kubelet-ts/api';
import { EventType, nodeReference, noopEventRecorder, noopLogger } from '@kubelet-ts/common';
import type { Clock, EventRecorder, Logger } from '@kubelet-ts/common';
import type { NodeStatusSetter } from './types.js';

type Provider<T> = () => T | Promise<T>;

/** Upstream v1.NodeConditionType values this package sets. */
export const NodeConditionType = {
  Ready: 'Ready',
  MemoryPressure: 'MemoryPressure',
  DiskPressure: 'DiskPressure',
  PIDPressure: 'PIDPressure',
} as const;
export type NodeConditionType = (typeof NodeConditionType)[keyof typeof NodeConditionType];

/** What the condition setters share: the clock for the times, where the transitions go. */
export interface ConditionSetterOptions {
  clock: Pick<Clock, 'now'>;
  /** Node events (upstream recordNodeStatusEvent); default none. */
  recorder?: EventRecorder;
  logger?: Logger;
}

/** Upstream recordNodeStatusEvent: "Node <name> status is now: <reason>". */
function recordNodeStatusEvent(options: ConditionSetterOptions, node: Node, reason: string): void {
  const name = node.metadata.name;
  (options.recorder ?? noopEventRecorder).event(nodeReference(name), EventType.Normal, reason, `Node ${name} status is now: ${reason}`);
}

function statusOf(node: Node): NodeStatus {
  node.status ??= {};
  return node.status;
}

interface PressureText {
  type: NodeConditionType;
  true: { reason: string; message: string; event: string };
  false: { reason: string; message: string; event: string };
}

function pressureCondition(text: PressureText, underPressure: Provider<boolean>, options: ConditionSetterOptions): NodeStatusSetter {
  return {
    name: `${text.type}Condition`,
    async set(node) {
      const now = formatTime(options.clock.now());
      const status = statusOf(node);
      const conditions = (status.conditions ??= []);
      let condition = conditions.find((c) => c.type === text.type);
      const isNew = condition === undefined;
      // A new condition starts Unknown, so that its first status is a transition (and an event).
      condition ??= { type: text.type, status: 'Unknown' };
      condition.lastHeartbeatTime = now;
      const want = (await underPressure()) ? 'True' : 'False';
      if (condition.status !== want) {
        const t = want === 'True' ? text.true : text.false;
        condition.status = want;
        condition.reason = t.reason;
        condition.message = t.message;
        condition.lastTransitionTime = now;
        recordNodeStatusEvent(options, node, t.event);
      }
      if (isNew) conditions.push(condition);
    },
  };
}

/** Upstream MemoryPressureCondition over the eviction manager's IsUnderMemoryPressure. */
export function memoryPressureCondition(underPressure: Provider<boolean>, options: ConditionSetterOptions): NodeStatusSetter {
  return pressureCondition(
    {
      type: NodeConditionType.MemoryPressure,
      true: {
        reason: Reason.KubeletHasInsufficientMemory,
        message: 'kubelet has insufficient memory available',
        event: EventReason.NodeHasInsufficientMemory,
      },
      false: {
        reason: Reason.KubeletHasSufficientMemory,
        message: 'kubelet has sufficient memory available',
        event: EventReason.NodeHasSufficientMemory,
      },
    },
    underPressure,
    options,
  );
}

/** Upstream DiskPressureCondition over the eviction manager's IsUnderDiskPressure. */
export function diskPressureCondition(underPressure: Provider<boolean>, options: ConditionSetterOptions): NodeStatusSetter {
  return pressureCondition(
    {
      type: NodeConditionType.DiskPressure,
      true: { reason: Reason.KubeletHasDiskPressure, message: 'kubelet has disk pressure', event: EventReason.NodeHasDiskPressure },
      false: { reason: Reason.KubeletHasNoDiskPressure, message: 'kubelet has no disk pressure', event: EventReason.NodeHasNoDiskPressure },
    },
    underPressure,
    options,
  );
}

/** Upstream PIDPressureCondition over the eviction manager's IsUnderPIDPressure. */
export function pidPressureCondition(underPressure: Provider<boolean>, options: ConditionSetterOptions): NodeStatusSetter {
  return pressureCondition(
    {
      type: NodeConditionType.PIDPressure,
      true: {
        reason: Reason.KubeletHasInsufficientPID,
        message: 'kubelet has insufficient PID available',
        event: EventReason.NodeHasInsufficientPID,
      },
      false: {
        reason: Reason.KubeletHasSufficientPID,
        message: 'kubelet has sufficient PID available',
        event: EventReason.NodeHasSufficientPID,
      },
    },
    underPressure,
    options,
  );
}

/** The messages of what keeps the node from being Ready, one provider per source; empty when fine. */
export type ReadinessErrors = Provider<readonly string[]>;

export interface ReadyConditionOptions extends ConditionSetterOptions {
  /** Upstream runtimeState.runtimeErrors: runtime down or not ready, PLEG unhealthy … */
  runtimeErrors?: ReadinessErrors;
  /** Upstream runtimeState.networkErrors: `container runtime network not ready: …`. */
  networkErrors?: ReadinessErrors;
  /** Upstream runtimeState.storageErrors (CSINode initialisation). */
  storageErrors?: ReadinessErrors;
  /** Upstream shutdownManager's errors. */
  shutdownErrors?: ReadinessErrors;
  /** Upstream containerManager.Status().SoftRequirements: appended as ". WARNING: <it>". */
  softRequirements?: Provider<string | undefined>;
  /** Upstream localStorageCapacityIsolation (default true): `ephemeral-storage` capacity is then required. */
  localStorageCapacityIsolation?: boolean;
}

/** Upstream utilerrors.NewAggregate(...).Error(): one message as it is, several deduplicated in brackets. */
export function aggregateMessages(messages: readonly string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? (unique[0] as string) : `[${unique.join(', ')}]`;
}

async function notReadyMessages(node: Node, options: ReadyConditionOptions): Promise<string[]> {
  const messages: string[] = [];
  for (const source of [options.runtimeErrors, options.networkErrors, options.storageErrors, options.shutdownErrors]) {
    if (source !== undefined) messages.push(...(await source()));
  }
  const required = ['cpu', 'memory', 'pods', ...(options.localStorageCapacityIsolation === false ? [] : ['ephemeral-storage'])];
  const capacity = node.status?.capacity ?? {};
  const missing = required.filter((r) => !Object.prototype.hasOwnProperty.call(capacity, r));
  if (missing.length > 0) messages.push(`missing node capacity for resources: ${missing.join(', ')}`);
  return messages;
}

/**
 * Upstream ReadyCondition: True `KubeletReady` "kubelet is posting ready status", or False
 * `KubeletNotReady` with the aggregated errors of the providers and the capacities missing from the
 * node (cpu, memory, pods, ephemeral-storage). NodeReady / NodeNotReady events on a change of an
 * existing condition only (a new condition records none, as upstream).
 */
export function readyCondition(options: ReadyConditionOptions): NodeStatusSetter {
  const logger = options.logger ?? noopLogger;
  return {
    name: 'ReadyCondition',
    async set(node) {
      const now = formatTime(options.clock.now());
      const messages = await notReadyMessages(node, options);
      const next: NodeCondition =
        messages.length === 0
          ? {
              type: NodeConditionType.Ready,
              status: 'True',
              reason: Reason.KubeletReady,
              message: 'kubelet is posting ready status',
              lastHeartbeatTime: now,
            }
          : {
              type: NodeConditionType.Ready,
              status: 'False',
              reason: Reason.KubeletNotReady,
              message: aggregateMessages(messages),
              lastHeartbeatTime: now,
            };
      const soft = await options.softRequirements?.();
      if (soft !== undefined && soft !== '') next.message = `${next.message ?? ''}. WARNING: ${soft}`;

      const conditions = (statusOf(node).conditions ??= []);
      const i = conditions.findIndex((c) => c.type === NodeConditionType.Ready);
      const previous = i >= 0 ? conditions[i] : undefined;
      const transitioned = previous !== undefined && previous.status !== next.status;
      next.lastTransitionTime = previous !== undefined && !transitioned ? previous.lastTransitionTime : now;
      if (previous === undefined) conditions.push(next);
      else conditions[i] = next;
      if (!transitioned) return;
      if (next.status === 'True') {
        recordNodeStatusEvent(options, node, EventReason.NodeReady);
      } else {
        recordNodeStatusEvent(options, node, EventReason.NodeNotReady);
        logger.info('Node became not ready', { node: node.metadata.name, reason: next.reason, message: next.message });
      }
    },
  };
}
