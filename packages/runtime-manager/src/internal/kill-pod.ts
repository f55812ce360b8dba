// Upstream kuberuntime KillPod / killPodWithSyncResult: containers (in termination order), then sandboxes.
import type { Pod } from '@kubelet-ts/api';
import { Reason } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { PodSyncResult, RunningContainer, RunningPod, SyncResult } from '@kubelet-ts/container-runtime';
import type { RuntimeContext } from './context.js';
import { killContainer } from './container-kill.js';
import { criMessage, toPodSyncResult } from './results.js';
import { sidecarDeadline, terminationOrder } from './termination-order.js';

/**
 * Stops every container that has not exited (preStop hooks, grace period from the pod, the
 * override, or the container's annotations when the spec is gone) and then the sandboxes.
 * Removes nothing.
 */
export async function killPod(
  ctx: RuntimeContext,
  pod: Pod | undefined,
  running: RunningPod,
  gracePeriodOverrideSeconds?: number,
): Promise<PodSyncResult> {
  const results: SyncResult[] = [];
  const toStop = running.containers.filter((c) => c.state !== 'exited');
  // Read at most once, and only for an httpGet preStop hook.
  let podIP: string | undefined;
  const ipOf = async (sandboxId: string): Promise<string> => {
    if (podIP !== undefined) return podIP;
    try {
      podIP = (await ctx.runtime.podSandboxStatus({ podSandboxId: sandboxId, verbose: false })).status?.network?.ip ?? '';
    } catch {
      podIP = '';
    }
    return podIP;
  };
  const started = ctx.clock.now();
  const kill = async (c: RunningContainer, deadline: number | undefined): Promise<SyncResult> => {
    const result: SyncResult = { action: 'KillContainer', target: c.name };
    try {
      const spec =
        pod === undefined
          ? undefined
          : [...(pod.spec.initContainers ?? []), ...pod.spec.containers, ...(pod.spec.ephemeralContainers ?? [])].find(
              (s) => s.name === c.name,
            );
      await killContainer(ctx, {
        pod,
        containerId: c.id,
        name: c.name,
        spec,
        gracePeriodOverrideSeconds,
        podIPLookup: () => ipOf(c.sandboxId),
        ...(deadline === undefined ? {} : { deadline }),
      });
    } catch (err) {
      result.reason = Reason.KillContainerError;
      result.message = errorMessage(err);
    }
    return result;
  };
  const order = terminationOrder(pod, toStop);
  const containerResults = await Promise.all(order.regular.map((c) => kill(c, undefined)));
  if (order.sidecars.length > 0 && pod !== undefined) {
    const deadline = sidecarDeadline(pod, gracePeriodOverrideSeconds, started);
    for (const c of order.sidecars) containerResults.push(await kill(c, deadline));
  }
  results.push(...containerResults);

  const sandboxResult: SyncResult = { action: 'KillPodSandbox', target: running.uid };
  results.push(sandboxResult);
  for (const s of running.sandboxes) {
    try {
      await ctx.runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
    } catch (err) {
      sandboxResult.reason = Reason.KillPodSandboxError;
      sandboxResult.message = criMessage(err);
      ctx.logger.error('Failed to stop sandbox', { podSandboxID: s.id, err: errorMessage(err) });
    }
  }
  return toPodSyncResult(results);
}
