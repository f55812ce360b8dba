import type { ContainerStatus, Pod, PodStatus } from '@kubelet-ts/api';
import { isRestartableInitContainer } from '@kubelet-ts/api';
import type { Clock } from '@kubelet-ts/common';
import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';
import type { StatusManager } from '@kubelet-ts/status-manager';
import type { PodStatusCache } from '../pod-cache.js';
import type { ReasonCache } from '../reason-cache.js';
import { DEADLINE_EXCEEDED, generatePodStatus, pastActiveDeadline } from '../status/generate.js';
import type { ReadinessProvider, StartupProvider } from '../status/generate.js';
import type { EvictPodRequest, ProbeResultUpdate } from '../types.js';

/** The API status of a pod from the runtime's view (upstream generateAPIPodStatus with the kubelet's own stops). */
export type StatusGenerator = (pod: Pod, runtimeStatus: RuntimePodStatus, podIsTerminal: boolean) => PodStatus;

export interface StatusGeneratorOptions {
  statusManager: Pick<StatusManager, 'getPodStatus'>;
  /** Pods the kubelet stopped itself: their terminal reason, message and condition. */
  stoppedByKubelet: ReadonlyMap<string, EvictPodRequest>;
  reasons: ReasonCache;
  readiness: ReadinessProvider | undefined;
  startup: StartupProvider | undefined;
  getNodeIPs: () => string[];
  runtimeName: string;
  clock: Clock;
}

export function createStatusGenerator(o: StatusGeneratorOptions): StatusGenerator {
  return (pod, runtimeStatus, podIsTerminal) => {
    const uid = pod.metadata.uid;
    const previous = o.statusManager.getPodStatus(uid);
    const now = o.clock.now();
    const deadlinePassed = pastActiveDeadline(pod, previous?.startTime ?? pod.status?.startTime, now);
    const stopped = o.stoppedByKubelet.get(uid);
    const evict =
      stopped !== undefined
        ? {
            reason: stopped.reason,
            message: stopped.message,
            ...(stopped.condition !== undefined ? { condition: { ...stopped.condition } } : {}),
          }
        : deadlinePassed
          ? DEADLINE_EXCEEDED
          : undefined;
    return generatePodStatus({
      ...(evict !== undefined ? { evict } : {}),
      pod,
      runtimeStatus,
      ...(previous !== undefined ? { previous } : {}),
      reasons: (name) => o.reasons.get(uid, name),
      ...(o.readiness !== undefined ? { readiness: o.readiness } : {}),
      ...(o.startup !== undefined ? { startup: o.startup } : {}),
      nodeIPs: o.getNodeIPs(),
      runtimeName: o.runtimeName,
      podIsTerminal,
      now,
    });
  };
}

export interface ProbeStatusOptions {
  statusManager: Pick<StatusManager, 'getPodStatus' | 'setPodStatus' | 'setContainerReadiness' | 'setContainerStartup'>;
  readiness: ReadinessProvider | undefined;
  startup: StartupProvider | undefined;
  generate: StatusGenerator;
  cache: Pick<PodStatusCache, 'get'>;
}

function findByContainerId(statuses: readonly ContainerStatus[] | undefined, id: string): ContainerStatus | undefined {
  return statuses?.find((s) => (s.containerID ?? '').replace(/^[^:]+:\/\//, '') === id);
}

/**
 * Upstream syncLoopIteration's readiness and startup updates (SetContainerReadiness,
 * SetContainerStartup) for a running pod with a status: the container's `started` and `ready`
 * as a status generation computes them (ready needs started), without regenerating the rest.
 * A sidecar's start also moves the phase and `Initialized`, which only a generation computes:
 * that one regenerates (upstream shows it one sync later). Liveness changes no status.
 */
export function applyProbeResult(o: ProbeStatusOptions, pod: Pod, update: ProbeResultUpdate): void {
  if (update.probeType === 'liveness') return;
  const uid = pod.metadata.uid;
  const status = o.statusManager.getPodStatus(uid);
  if (status === undefined) return;
  const id = update.containerId;
  const regular = findByContainerId(status.containerStatuses, id);
  const init = regular === undefined ? findByContainerId(status.initContainerStatuses, id) : undefined;
  const container = regular ?? init;
  if (container === undefined) return;
  if (init !== undefined) {
    const spec = pod.spec.initContainers?.find((c) => c.name === init.name);
    if (spec === undefined || !isRestartableInitContainer(spec)) return;
    if (update.probeType === 'startup') {
      o.statusManager.setPodStatus(pod, o.generate(pod, o.cache.get(uid).status, false));
      return;
    }
  }
  const ref = { pod, containerName: container.name };
  const running = container.state?.running !== undefined;
  const started = running && (o.startup?.isStarted(id, ref) ?? true);
  if (update.probeType === 'startup') o.statusManager.setContainerStartup(uid, id, started);
  o.statusManager.setContainerReadiness(uid, id, running && started && (o.readiness?.isReady(id, ref) ?? true));
}
