// Upstream kuberuntime_container.go killContainer and restoreSpecsFromContainerLabels.
import type { Container, Pod } from '@kubelet-ts/api';
import { EventReason, podFullName } from '@kubelet-ts/api';
import { EventType } from '@kubelet-ts/common';
import type { ContainerStatus } from '@kubelet-ts/cri-client';
import { isNotFound } from '@kubelet-ts/cri-client';
import { ContainerKillReason } from '../compute-pod-actions.js';
import { decodeContainerAnnotations, decodeContainerLabels } from '../labels.js';
import type { RuntimeContext } from './context.js';
import { hookDeps } from './context.js';
import { recordContainerEvent } from './events.js';
import { runLifecycleHandler } from './lifecycle.js';

/** Upstream minimumGracePeriodInSeconds: containers always get this long to stop. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

/** One container to stop (upstream killContainer's arguments). */
export interface KillContainerRequest {
  /** The pod; undefined when its spec is gone (then the container's annotations stand in). */
  pod: Pod | undefined;
  containerId: string;
  name: string;
  /** The container's spec, when the pod still has it. */
  spec?: Container | undefined;
  /** Why, for the Killing event and the log; '' or absent says "Stopping container <name>". */
  message?: string;
  /** Selects a probe's own termination grace period. Default none. */
  reason?: ContainerKillReason;
  gracePeriodOverrideSeconds?: number | undefined;
  /** The pod IP for an httpGet preStop hook… */
  podIP?: string;
  /** …or how to find it, asked only when such a hook runs. */
  podIPLookup?: () => Promise<string>;
  /** A sidecar stopped after the regular containers gets only what is left until this time (ms). */
  deadline?: number;
}

/** Upstream setTerminationGracePeriod (probe-specific grace periods included). */
function terminationGracePeriod(pod: Pod, container: Container, reason: ContainerKillReason): number {
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) return pod.metadata.deletionGracePeriodSeconds;
  if (pod.spec.terminationGracePeriodSeconds !== undefined) {
    if (reason === ContainerKillReason.StartupProbe && container.startupProbe?.terminationGracePeriodSeconds !== undefined) {
      return container.startupProbe.terminationGracePeriodSeconds;
    }
    if (reason === ContainerKillReason.LivenessProbe && container.livenessProbe?.terminationGracePeriodSeconds !== undefined) {
      return container.livenessProbe.terminationGracePeriodSeconds;
    }
    return pod.spec.terminationGracePeriodSeconds;
  }
  return MINIMUM_GRACE_PERIOD_SECONDS;
}

/**
 * Upstream killContainer: the grace period (override, else the pod's deletion grace period, else
 * its terminationGracePeriodSeconds, else what the container's annotations recorded when the spec
 * is gone, else 2 s), the preStop hook inside it, then StopContainer with what is left (at least 2 s).
 */
export async function killContainer(ctx: RuntimeContext, request: KillContainerRequest): Promise<void> {
  const { containerId, name, gracePeriodOverrideSeconds } = request;
  let pod = request.pod;
  let container = request.spec;
  if (pod === undefined || container === undefined) {
    // The spec is gone (the kubelet restarted after the pod was deleted): rebuild what matters from annotations.
    const restored = await restoreSpecs(ctx, containerId, name, request.pod);
    if (restored === undefined) {
      await ctx.runtime.stopContainer(
        { containerId, timeout: gracePeriodOverrideSeconds ?? MINIMUM_GRACE_PERIOD_SECONDS },
        { ignoreNotFound: true },
      );
      return;
    }
    pod = restored.pod;
    container = restored.container;
  }
  let grace = terminationGracePeriod(pod, container, request.reason ?? ContainerKillReason.None);
  if (gracePeriodOverrideSeconds !== undefined) grace = gracePeriodOverrideSeconds;
  if (request.deadline !== undefined) grace = Math.min(grace, Math.max(0, Math.ceil((request.deadline - ctx.clock.now()) / 1000)));
  const message = request.message !== undefined && request.message !== '' ? request.message : `Stopping container ${container.name}`;
  const record = (type: EventType, reason: string, text: string): void =>
    recordContainerEvent(ctx.recorder, { pod, name: container.name, containerId, type, reason, message: text });
  record(EventType.Normal, EventReason.KillingContainer, message);
  ctx.logger.info('Killing container with a grace period', {
    pod: podFullName(pod),
    containerName: name,
    containerID: containerId,
    gracePeriod: grace,
    reason: message,
  });

  const preStop = container.lifecycle?.preStop;
  if (preStop !== undefined && grace > 0) {
    const started = ctx.clock.now();
    const ip = request.podIP ?? (preStop.httpGet !== undefined && request.podIPLookup !== undefined ? await request.podIPLookup() : '');
    const controller = new AbortController();
    const hook = runLifecycleHandler(hookDeps(ctx), containerId, pod, container, preStop, ip, controller.signal);
    const timer = ctx.clock.sleep(grace * 1000, controller.signal).then(
      () => 'timeout' as const,
      () => 'aborted' as const,
    );
    const outcome = await Promise.race([hook, timer]);
    controller.abort();
    if (outcome === 'timeout') {
      ctx.logger.warn('PreStop hook not completed in grace period', { containerName: name, containerID: containerId, gracePeriod: grace });
    } else if (outcome !== '' && outcome !== 'aborted') {
      ctx.logger.warn('PreStop hook failed', { containerName: name, containerID: containerId, err: outcome });
      // Upstream keeps the hook's output out of the event: it may hold secrets.
      record(EventType.Warning, EventReason.FailedPreStopHook, 'PreStopHook failed');
    }
    grace -= Math.trunc((ctx.clock.now() - started) / 1000);
  }
  if (grace < MINIMUM_GRACE_PERIOD_SECONDS) grace = MINIMUM_GRACE_PERIOD_SECONDS;
  await ctx.runtime.stopContainer({ containerId, timeout: grace }, { ignoreNotFound: true });
}

/** The pod and container specs as far as the container's labels and annotations recorded them. */
async function restoreSpecs(
  ctx: RuntimeContext,
  containerId: string,
  name: string,
  pod: Pod | undefined,
): Promise<{ pod: Pod; container: Container } | undefined> {
  let status: ContainerStatus | null;
  try {
    status = (await ctx.runtime.containerStatus({ containerId, verbose: false })).status;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
  if (status === null) return undefined;
  const labels = decodeContainerLabels(status.labels);
  const a = decodeContainerAnnotations(status.annotations);
  const restoredPod: Pod = pod ?? {
    metadata: {
      name: labels.podName,
      namespace: labels.podNamespace,
      uid: labels.podUID,
      ...(a.podDeletionGracePeriodSeconds === undefined ? {} : { deletionGracePeriodSeconds: a.podDeletionGracePeriodSeconds }),
    },
    spec: {
      containers: [],
      ...(a.podTerminationGracePeriodSeconds === undefined ? {} : { terminationGracePeriodSeconds: a.podTerminationGracePeriodSeconds }),
    },
  };
  const container: Container = {
    name: labels.containerName === '' ? name : labels.containerName,
    image: status.image?.userSpecifiedImage || status.image?.image || '',
    ...(a.preStopHandler === undefined ? {} : { lifecycle: { preStop: a.preStopHandler } }),
    ...(a.containerPorts === undefined ? {} : { ports: a.containerPorts }),
    terminationMessagePath: a.terminationMessagePath,
    terminationMessagePolicy: a.terminationMessagePolicy,
  };
  return { pod: restoredPod, container };
}
