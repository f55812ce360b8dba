// Upstream kuberuntime SyncPod: computePodActions, then kill, create the sandbox, start ephemeral
// containers, init containers, regular containers.
import type { Container, Pod } from '@kubelet-ts/api';
import { EventReason, Reason, isRestartableInitContainer, podFullName } from '@kubelet-ts/api';
import type { Backoff, Logger } from '@kubelet-ts/common';
import { EventType, errorMessage, podReference } from '@kubelet-ts/common';
import type { PodSyncResult, RuntimePodStatus, SyncResult } from '@kubelet-ts/container-runtime';
import { toRunningPod } from '@kubelet-ts/container-runtime';
import type { PodSandboxConfig } from '@kubelet-ts/cri-client';
import { computePodActions } from '../compute-pod-actions.js';
import type { PodActions } from '../compute-pod-actions.js';
import { RuntimeManagerError } from '../errors.js';
import { killContainer } from './container-kill.js';
import { purgeInitContainers, pruneInitContainersBeforeStart } from './container-remove.js';
import { StartFailure, checkBackoff, startContainer } from './container-start.js';
import type { RuntimeContext } from './context.js';
import { killPod } from './kill-pod.js';
import type { StartedContainerType } from './metrics.js';
import { formatPod } from './lifecycle.js';
import { criMessage, resultError, toPodSyncResult } from './results.js';
import { createPodSandbox, createdSandboxIPs, sandboxConfig } from './sandbox.js';

/** One run of SyncPod for one pod: what it was asked, what it decided, what happened so far. */
interface PodSync {
  ctx: RuntimeContext;
  pod: Pod;
  status: RuntimePodStatus;
  actions: PodActions;
  results: SyncResult[];
  log: Logger;
}

/** Where the containers of this sync start. */
interface StartTarget {
  sandboxId: string;
  podIPs: string[];
  /** The config a sandbox created in this sync ran with (its containers get the same; upstream generates it again). */
  createdWith?: PodSandboxConfig;
}

/** Converges one pod; every step's outcome is in the results, the first failure is the error. */
export async function syncPod(
  ctx: RuntimeContext,
  pod: Pod,
  status: RuntimePodStatus,
  crashLoopBackoff: Backoff,
  signal?: AbortSignal,
): Promise<PodSyncResult> {
  const log = ctx.logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: pod.metadata.uid });
  const actions = computePodActions(pod, status, ctx.probeResults === undefined ? {} : { probeResults: ctx.probeResults });
  log.debug('computePodActions', { actions });
  const sync: PodSync = { ctx, pod, status, actions, results: [], log };
  const { results } = sync;
  // Upstream: only a sandbox being replaced is news; a new pod's first sandbox is not.
  if (actions.createSandbox && actions.sandboxId !== '') {
    ctx.recorder.event(
      podReference(pod),
      EventType.Normal,
      EventReason.SandboxChanged,
      'Pod sandbox changed, it will be killed and re-created.',
    );
  }

  const stopped = await killWhatMustStop(sync);
  if (stopped !== undefined) return stopped;
  await pruneInitContainersBeforeStart(ctx, pod, status);

  const target = await ensureSandbox(sync);
  if (!('sandboxId' in target)) return target; // no sandbox: the sync ends with its result

  // A running pod's periodic sync starts nothing: no sandbox config (DNS from resolv.conf) to generate.
  if (
    actions.initContainersToStart.length === 0 &&
    actions.containersToStart.length === 0 &&
    actions.ephemeralContainersToStart.length === 0
  ) {
    const error = resultError(results);
    return error === undefined ? { results } : { results, error };
  }
  let config: PodSandboxConfig;
  try {
    config = target.createdWith ?? (await sandboxConfig(ctx, pod, actions.attempt));
  } catch (err) {
    results.push({
      action: 'ConfigPodSandbox',
      target: target.sandboxId,
      reason: Reason.ConfigPodSandboxError,
      message: `GeneratePodSandboxConfig for pod "${podFullName(pod)}" failed: ${errorMessage(err)}`,
    });
    return { results, error: resultError(results) };
  }

  await startContainers(sync, target, config, crashLoopBackoff, signal);
  if (signal?.aborted === true) return { results, error: RuntimeManagerError.from(signal.reason ?? new Error('syncPod aborted')) };
  return toPodSyncResult(results);
}

/**
 * The whole pod when the actions say so (then, with a new sandbox to come, the old init containers
 * go), else the single containers to kill. Returns the sync's result when it must end here.
 */
async function killWhatMustStop(sync: PodSync): Promise<PodSyncResult | undefined> {
  const { ctx, pod, status, actions, results, log } = sync;
  if (actions.killPod) {
    const killed = await killPod(ctx, pod, toRunningPod(status));
    results.push(...killed.results);
    if (killed.error !== undefined) return { results, error: killed.error };
    // Nothing left to run (all done, or a failed init container under restartPolicy Never).
    if (!actions.createSandbox) return { results };
    await purgeInitContainers(ctx, pod, status);
    return undefined;
  }
  for (const kill of actions.containersToKill) {
    const result: SyncResult = { action: 'KillContainer', target: kill.name };
    results.push(result);
    try {
      await killContainer(ctx, {
        pod,
        containerId: kill.id,
        name: kill.name,
        spec: kill.container,
        message: kill.message,
        reason: kill.reason,
        podIP: status.ips[0] ?? '',
      });
    } catch (err) {
      result.reason = Reason.KillContainerError;
      result.message = errorMessage(err);
      log.error('killContainer for pod failed', { containerName: kill.name, containerID: kill.id, err: errorMessage(err) });
      return { results, error: resultError(results) };
    }
  }
  return undefined;
}

/** The sandbox to start containers in: a new one when the actions say so (with its IPs), else the current one. */
async function ensureSandbox(sync: PodSync): Promise<StartTarget | PodSyncResult> {
  const { ctx, pod, status, actions, results, log } = sync;
  if (!actions.createSandbox) return { sandboxId: actions.sandboxId, podIPs: status.ips };
  const result: SyncResult = { action: 'CreatePodSandbox', target: podFullName(pod) };
  results.push(result);
  let sandboxId: string;
  let createdWith: PodSandboxConfig;
  ctx.startMetrics.pods.inc();
  try {
    ({ sandboxId, config: createdWith } = await createPodSandbox(ctx, pod, actions.attempt));
  } catch (err) {
    ctx.startMetrics.podErrors.inc();
    result.reason = Reason.CreatePodSandboxError;
    result.message = `Failed to create sandbox for pod ${JSON.stringify(formatPod(pod))}: ${criMessage(err)}`;
    log.error('CreatePodSandbox for pod failed', { err: errorMessage(err) });
    ctx.recorder.event(
      podReference(pod),
      EventType.Warning,
      EventReason.FailedCreatePodSandBox,
      `Failed to create pod sandbox: ${criMessage(err)}`,
    );
    return { results, error: resultError(results) };
  }
  try {
    const ips = await createdSandboxIPs(ctx, pod, sandboxId);
    return { sandboxId, podIPs: pod.spec.hostNetwork === true ? status.ips : ips, createdWith };
  } catch (err) {
    return { results, error: RuntimeManagerError.from(err) };
  }
}

/**
 * Ephemeral containers first (upstream step 5: a failing init container must not keep a debugger
 * out), then init containers in order (a failed regular one stops initialization), then the
 * regular containers.
 */
async function startContainers(
  sync: PodSync,
  target: StartTarget,
  config: PodSandboxConfig,
  crashLoopBackoff: Backoff,
  signal: AbortSignal | undefined,
): Promise<void> {
  const { ctx, pod, status, actions, results, log } = sync;
  /** Records why a start failed in its result (and the log); returns the reason. */
  const failed = (container: Container, result: SyncResult, err: unknown): string => {
    let reason: string;
    if (err instanceof StartFailure) {
      reason = err.reason;
      result.message = err.message;
      if (err.retryAfterMs !== undefined) result.retryAfterMs = err.retryAfterMs;
    } else if (RuntimeManagerError.is(err)) {
      reason = err.reason;
      result.message = err.message;
    } else {
      reason = Reason.RunContainerError;
      result.message = errorMessage(err);
    }
    result.reason = reason;
    log.info('Container start failed', { containerName: container.name, reason, err: result.message });
    return reason;
  };
  const start = async (
    container: Container,
    action: 'StartContainer' | 'InitContainer',
    type: StartedContainerType,
    targetContainerName?: string,
  ): Promise<boolean> => {
    // A cancelled sync (the pod worker moved on) starts nothing more.
    if (signal?.aborted === true) return false;
    const result: SyncResult = { action, target: container.name };
    results.push(result);
    try {
      checkBackoff(ctx, pod, container, status, crashLoopBackoff);
    } catch (err) {
      failed(container, result, err);
      return false;
    }
    // As upstream: a start is counted once past the back-off check, a failure by the start's error code.
    ctx.startMetrics.containers.inc({ container_type: type });
    try {
      await startContainer(ctx, {
        sandboxId: target.sandboxId,
        sandboxConfig: config,
        pod,
        container,
        status,
        podIPs: target.podIPs,
        signal,
        ...(targetContainerName === undefined || targetContainerName === '' ? {} : { targetContainerName }),
      });
      return true;
    } catch (err) {
      ctx.startMetrics.containerErrors.inc({ container_type: type, code: failed(container, result, err) });
      return false;
    }
  };

  const ephemeralContainers = pod.spec.ephemeralContainers ?? [];
  for (const idx of actions.ephemeralContainersToStart) {
    const ephemeral = ephemeralContainers[idx];
    if (ephemeral === undefined) continue;
    const { targetContainerName, ...container } = ephemeral;
    // A failed ephemeral container stops nothing else.
    await start(container, 'StartContainer', 'ephemeral_container', targetContainerName);
  }
  const initContainers = pod.spec.initContainers ?? [];
  for (const idx of actions.initContainersToStart) {
    const container = initContainers[idx];
    if (container === undefined) continue;
    const restartable = isRestartableInitContainer(container);
    const ok = await start(container, restartable ? 'StartContainer' : 'InitContainer', 'init_container');
    // A failed sidecar does not stop the others; a failed init container stops initialization.
    if (!ok && !restartable) break;
  }
  const initFailed = results.some((r) => r.action === 'InitContainer' && r.reason !== undefined);
  for (const idx of initFailed ? [] : actions.containersToStart) {
    const container = pod.spec.containers[idx];
    if (container !== undefined) await start(container, 'StartContainer', 'container');
  }
}
