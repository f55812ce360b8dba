// Upstream kuberuntime_sandbox.go: generatePodSandboxConfig, createPodSandbox.
import { mkdir } from 'node:fs/promises';
import type { Pod } from '@kubelet-ts/api';
import { EventReason } from '@kubelet-ts/api';
import { EventType, podReference } from '@kubelet-ts/common';
import type { PodSandboxConfig, PodSandboxStatus } from '@kubelet-ts/cri-client';
import type { RuntimeContext } from './context.js';
import { generatePodSandboxConfig } from './config.js';
import { toSandboxStatus } from './pod-status.js';
import { criMessage } from './results.js';

/** The sandbox config of a pod: DNS and cgroup parent from the runtime helper. */
export async function sandboxConfig(ctx: RuntimeContext, pod: Pod, attempt: number): Promise<PodSandboxConfig> {
  const dns = await ctx.helper.getPodDNS(pod);
  return generatePodSandboxConfig({
    pod,
    attempt,
    podLogsDir: ctx.podLogsDir,
    dns,
    cgroupParent: ctx.helper.getPodCgroupParent(pod),
  });
}

/** Makes the pod's log directory and runs its sandbox (within the start limit); returns the sandbox ID and the config it ran with. */
export async function createPodSandbox(
  ctx: RuntimeContext,
  pod: Pod,
  attempt: number,
): Promise<{ sandboxId: string; config: PodSandboxConfig }> {
  const config = await sandboxConfig(ctx, pod, attempt);
  await mkdir(config.logDirectory ?? '', { recursive: true, mode: 0o755 });
  const response = await ctx.starts.run(() =>
    ctx.runtime.runPodSandbox({
      config,
      ...(ctx.runtimeHandler === undefined ? {} : { runtimeHandler: ctx.runtimeHandler }),
    }),
  );
  return { sandboxId: response.podSandboxId, config };
}

/** The pod IPs of a sandbox just created, primary first (throws when the runtime cannot say). */
export async function createdSandboxIPs(ctx: RuntimeContext, pod: Pod, sandboxId: string): Promise<string[]> {
  let created: PodSandboxStatus | null;
  try {
    created = (await ctx.runtime.podSandboxStatus({ podSandboxId: sandboxId, verbose: false })).status;
  } catch (err) {
    ctx.recorder.event(
      podReference(pod),
      EventType.Warning,
      EventReason.FailedStatusPodSandBox,
      `Unable to get pod sandbox status: ${criMessage(err)}`,
    );
    throw err;
  }
  if (created === null) throw new Error('pod sandbox status is nil');
  const s = toSandboxStatus(created);
  return s.ip === undefined ? [] : [s.ip, ...s.additionalIps];
}
