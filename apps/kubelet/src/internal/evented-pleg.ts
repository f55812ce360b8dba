/**
 * The CRI side of the evented PLEG (feature gate EventedPLEG): CRI GetContainerEvents as pod-lifecycle's
 * ContainerEventSource, each event's PodSandboxStatus and ContainersStatuses converted to the runtime
 * contract's pod status by runtime-manager's generatePodStatus (upstream kuberuntime GeneratePodStatus).
 */
import type { Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { ContainerEventResponse, RuntimeService } from '@kubelet-ts/cri-client';
import type { ContainerEventSource, ContainerEventType, RuntimeContainerEvent } from '@kubelet-ts/pod-lifecycle';
import { criNanosToMs, generatePodStatus } from '@kubelet-ts/runtime-manager';

const EVENT_TYPES: readonly ContainerEventType[] = [
  'CONTAINER_CREATED_EVENT',
  'CONTAINER_STARTED_EVENT',
  'CONTAINER_STOPPED_EVENT',
  'CONTAINER_DELETED_EVENT',
];

/** Upstream GeneratePodStatus over the event's statuses; undefined when the runtime sent no sandbox status. */
export async function podStatusFromEvent(event: ContainerEventResponse, createdAt: number): Promise<RuntimePodStatus | undefined> {
  const sandbox = event.podSandboxStatus;
  if (sandbox === null || sandbox === undefined) return undefined;
  return generatePodStatus(sandbox, event.containersStatuses, createdAt);
}

/** One CRI event as the evented PLEG takes it; an unknown event type is passed on as sent, for the PLEG to refuse. */
export async function toRuntimeContainerEvent(event: ContainerEventResponse): Promise<RuntimeContainerEvent> {
  const createdAt = criNanosToMs(event.createdAt);
  const type = EVENT_TYPES.find((t) => t === event.containerEventType) ?? (String(event.containerEventType) as ContainerEventType);
  return { containerId: event.containerId, type, createdAt, podStatus: await podStatusFromEvent(event, createdAt) };
}

/**
 * CRI GetContainerEvents as the evented PLEG's source: no deadline; the stream ends when the signal aborts.
 * An event that cannot be converted is logged and skipped, never a failed stream.
 */
export function criContainerEventSource(runtime: Pick<RuntimeService, 'getContainerEvents'>, logger: Logger): ContainerEventSource {
  return {
    async *getContainerEvents(signal: AbortSignal) {
      for await (const event of runtime.getContainerEvents({}, { signal })) {
        let converted: RuntimeContainerEvent;
        try {
          converted = await toRuntimeContainerEvent(event);
        } catch (err) {
          logger.error('Evented PLEG: ignoring a container event', { reason: errorMessage(err) });
          continue;
        }
        yield converted;
      }
    },
  };
}
