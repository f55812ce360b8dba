// Upstream kuberuntime GetPods / GetPodStatus: the runtime's view of pods, converted from CRI once.
import type {
  RunningContainer,
  RunningPod,
  RunningSandbox,
  RuntimeContainerState,
  RuntimeContainerStatus,
  RuntimePodStatus,
  RuntimeSandboxStatus,
} from '@kubelet-ts/container-runtime';
import { CONTAINER_HASH_ANNOTATION, KUBERNETES_POD_UID_LABEL } from '@kubelet-ts/container-runtime';
import type { ContainerStatus, PodSandboxStatus } from '@kubelet-ts/cri-client';
import { isNotFound } from '@kubelet-ts/cri-client';
import { decodeContainerAnnotations, decodeContainerLabels, decodeSandboxLabels } from '../labels.js';
import type { RuntimeContext } from './context.js';
import { MAX_TERMINATION_MESSAGE_BYTES, readFileHead, readLastLogLines } from './logs.js';

/** CRI nanosecond timestamps (decimal strings) to milliseconds; missing or malformed ones are 0. */
export function nsToMs(ns: string | number | undefined): number {
  if (ns === undefined || ns === '' || ns === 0 || ns === '0') return 0;
  try {
    return Number(BigInt(ns) / 1_000_000n);
  } catch {
    return 0;
  }
}

function containerStateOf(state: string): RuntimeContainerState {
  switch (state) {
    case 'CONTAINER_CREATED':
      return 'created';
    case 'CONTAINER_RUNNING':
      return 'running';
    case 'CONTAINER_EXITED':
      return 'exited';
    default:
      return 'unknown';
  }
}

/** Pods grouped by their UID label from the CRI list calls; `all` includes exited containers and not-ready sandboxes. */
export async function getPods(ctx: RuntimeContext, all: boolean): Promise<RunningPod[]> {
  const [sandboxes, containers] = await Promise.all([
    ctx.runtime.listPodSandbox(all ? {} : { filter: { state: { state: 'SANDBOX_READY' } } }),
    ctx.runtime.listContainers(all ? {} : { filter: { state: { state: 'CONTAINER_RUNNING' } } }),
  ]);
  const pods = new Map<string, RunningPod>();
  const podFor = (uid: string, name: string, namespace: string): RunningPod => {
    let pod = pods.get(uid);
    if (pod === undefined) {
      pod = { uid, name, namespace, sandboxes: [], containers: [] };
      pods.set(uid, pod);
    }
    return pod;
  };
  for (const s of sandboxes.items) {
    const info = decodeSandboxLabels(s.labels);
    if (info.podUID === '') continue; // not created by a kubelet
    const sandbox: RunningSandbox = { id: s.id, state: s.state === 'SANDBOX_READY' ? 'ready' : 'notready', createdAt: nsToMs(s.createdAt) };
    podFor(info.podUID, info.podName, info.podNamespace).sandboxes.push(sandbox);
  }
  for (const c of containers.containers) {
    const info = decodeContainerLabels(c.labels);
    if (info.podUID === '' || info.containerName === '') continue;
    const container: RunningContainer = {
      id: c.id,
      name: info.containerName,
      state: containerStateOf(c.state),
      image: c.image?.userSpecifiedImage || c.image?.image || '',
      imageRef: c.imageRef,
      // Only the hash: decoding every annotation (JSON hooks and ports) of every container on each relist is waste.
      hash: c.annotations[CONTAINER_HASH_ANNOTATION] ?? '',
      createdAt: nsToMs(c.createdAt),
      sandboxId: c.podSandboxId,
    };
    podFor(info.podUID, info.podName, info.podNamespace).containers.push(container);
  }
  for (const pod of pods.values()) {
    pod.sandboxes.sort((a, b) => b.createdAt - a.createdAt);
    pod.containers.sort((a, b) => b.createdAt - a.createdAt);
  }
  return [...pods.values()];
}

/** Full status of one pod from PodSandboxStatus and ContainerStatus calls, newest first. */
export async function getPodStatus(ctx: RuntimeContext, uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
  const listed = await ctx.runtime.listPodSandbox({ filter: { labelSelector: { [KUBERNETES_POD_UID_LABEL]: uid } } });
  const ordered = [...listed.items].sort((a, b) => nsToMs(b.createdAt) - nsToMs(a.createdAt));
  const sandboxes: RuntimeSandboxStatus[] = [];
  let ips: string[] = [];
  for (const [idx, s] of ordered.entries()) {
    let status: PodSandboxStatus | null;
    try {
      status = (await ctx.runtime.podSandboxStatus({ podSandboxId: s.id, verbose: false })).status;
    } catch (err) {
      // Removed between the list and the status call: as if it had not been listed.
      if (isNotFound(err)) continue;
      throw err;
    }
    if (status === null) continue;
    const sandbox = toSandboxStatus(status);
    sandboxes.push(sandbox);
    if (idx === 0 && sandbox.state === 'ready' && sandbox.ip !== undefined && sandbox.ip !== '') {
      ips = [sandbox.ip, ...sandbox.additionalIps];
    }
  }
  const containers = await containerStatuses(ctx, uid);
  return { uid, name, namespace, ips, sandboxes, containers, timestamp: ctx.clock.now() };
}

export function toSandboxStatus(status: PodSandboxStatus): RuntimeSandboxStatus {
  const ip = status.network?.ip ?? '';
  return {
    id: status.id,
    state: status.state === 'SANDBOX_READY' ? 'ready' : 'notready',
    createdAt: nsToMs(status.createdAt),
    attempt: status.metadata?.attempt ?? 0,
    ...(ip === '' ? {} : { ip }),
    additionalIps: (status.network?.additionalIps ?? []).map((p) => p.ip).filter((p) => p !== ''),
    hostNetwork: status.linux?.namespaces?.options?.network === 'NODE',
  };
}

async function containerStatuses(ctx: RuntimeContext, uid: string): Promise<RuntimeContainerStatus[]> {
  const listed = await ctx.runtime.listContainers({ filter: { labelSelector: { [KUBERNETES_POD_UID_LABEL]: uid } } });
  // One ContainerStatus call per container, concurrently: a pod with many dead instances stays cheap.
  const converted = await Promise.all(
    listed.containers.map(async (c): Promise<RuntimeContainerStatus | undefined> => {
      let status: ContainerStatus | null;
      try {
        status = (await ctx.runtime.containerStatus({ containerId: c.id, verbose: false })).status;
      } catch (err) {
        // Removed between the list and the status call: as if it had not been listed.
        if (isNotFound(err)) return undefined;
        throw err;
      }
      return status === null ? undefined : toContainerStatus(status);
    }),
  );
  const out = converted.filter((c): c is RuntimeContainerStatus => c !== undefined);
  return out.sort((a, b) => b.createdAt - a.createdAt);
}

export async function toContainerStatus(status: ContainerStatus): Promise<RuntimeContainerStatus | undefined> {
  const labels = decodeContainerLabels(status.labels);
  if (labels.containerName === '') return undefined;
  const annotations = decodeContainerAnnotations(status.annotations);
  const state = containerStateOf(status.state);
  const out: RuntimeContainerStatus = {
    id: status.id,
    name: labels.containerName,
    state,
    createdAt: nsToMs(status.createdAt),
    image: status.image?.userSpecifiedImage || status.image?.image || '',
    imageRef: status.imageRef,
    hash: annotations.hash,
    restartCount: annotations.restartCount,
  };
  const startedAt = nsToMs(status.startedAt);
  if (startedAt > 0) out.startedAt = startedAt;
  const finishedAt = nsToMs(status.finishedAt);
  if (finishedAt > 0) out.finishedAt = finishedAt;
  if (state === 'exited') out.exitCode = status.exitCode;
  if (status.reason !== '') out.reason = status.reason;
  let message = status.message;
  if (state === 'exited') {
    // Upstream: the termination message file, else (FallbackToLogsOnError, non-zero exit) the log's tail.
    const fallbackToLogs =
      annotations.terminationMessagePolicy === 'FallbackToLogsOnError' && status.exitCode !== 0 && status.reason !== 'ContainerCannotRun';
    let termination = '';
    const mount = status.mounts.find(
      (m) => m.containerPath === annotations.terminationMessagePath && annotations.terminationMessagePath !== '',
    );
    if (mount !== undefined) termination = await readFileHead(mount.hostPath, MAX_TERMINATION_MESSAGE_BYTES);
    if (termination === '' && fallbackToLogs && status.logPath !== '') termination = await readLastLogLines(status.logPath);
    if (termination !== '') message = message === '' ? termination : `${message}: ${termination}`;
  }
  if (message !== '') out.message = message;
  return out;
}
