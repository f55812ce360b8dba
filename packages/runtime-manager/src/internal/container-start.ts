// Upstream kuberuntime_container.go startContainer, and doBackOff from kuberuntime_manager.go.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { EventReason, Reason, podFullName } from '@kubelet-ts/api';
import type { Backoff } from '@kubelet-ts/common';
import { EventType, errorMessage, formatGoDuration, sleepWith } from '@kubelet-ts/common';
import type { RuntimeContainerStatus, RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { backoffKey, findContainerStatus, hashContainer } from '@kubelet-ts/container-runtime';
import type { ContainerConfig, PodSandboxConfig } from '@kubelet-ts/cri-client';
import { ContainerKillReason } from '../compute-pod-actions.js';
import { RuntimeManagerError } from '../errors.js';
import type { ImageUser } from './config.js';
import { containerLogPath, generateContainerConfig, podLogsDirectory, verifyRunAsNonRoot } from './config.js';
import { killContainer } from './container-kill.js';
import type { RuntimeContext } from './context.js';
import { hookDeps } from './context.js';
import { recordContainerEvent } from './events.js';
import { formatPod, runLifecycleHandler } from './lifecycle.js';
import { createLegacyLogSymlink } from './log-symlink.js';
import { criMessage } from './results.js';

/** A container that could not be started, with the waiting reason its status must show. */
export class StartFailure extends Error {
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown; retryAfterMs?: number },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    if (options?.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  readonly retryAfterMs?: number;
}

/** Upstream doBackOff: a container that exited and is still in its CrashLoopBackOff window is not started. */
export function checkBackoff(ctx: RuntimeContext, pod: Pod, container: Container, status: RuntimePodStatus, backoff: Backoff): void {
  const exited = status.containers.find((c) => c.name === container.name && c.state === 'exited');
  if (exited === undefined) return;
  const key = backoffKey(pod, container);
  const since = exited.finishedAt ?? exited.createdAt;
  if (backoff.isInBackoffSince(key, since)) {
    recordContainerEvent(ctx.recorder, {
      pod,
      name: container.name,
      containerId: '',
      type: EventType.Warning,
      reason: EventReason.BackOffStartContainer,
      message: `Back-off restarting failed container ${container.name} in pod ${formatPod(pod)}`,
    });
    const delayMs = backoff.get(key);
    throw new StartFailure(
      Reason.CrashLoopBackOff,
      `back-off ${formatGoDuration(delayMs)} restarting failed container=${container.name} pod=${formatPod(pod)}`,
      { retryAfterMs: Math.max(0, since + delayMs - ctx.clock.now()) },
    );
  }
  backoff.next(key);
}

/** Where one start of a container goes. */
export interface StartContainerRequest {
  sandboxId: string;
  sandboxConfig: PodSandboxConfig;
  pod: Pod;
  container: Container;
  status: RuntimePodStatus;
  podIPs: string[];
  signal: AbortSignal | undefined;
  /** An ephemeral container's target: it joins that container's PID namespace. */
  targetContainerName?: string;
}

/**
 * Upstream startContainer: pull the image, generate the config (CreateContainerConfigError), create
 * and start the container within the start limit, then run its postStart hook (a failed hook kills
 * it: PostStartHookError). Throws StartFailure with the waiting reason.
 */
export async function startContainer(ctx: RuntimeContext, request: StartContainerRequest): Promise<void> {
  const { sandboxId, sandboxConfig, pod, container, podIPs, signal } = request;
  const record = (containerId: string, type: EventType, reason: string, message: string): void =>
    recordContainerEvent(ctx.recorder, { pod, name: container.name, containerId, type, reason, message });
  const unstarted = unstartedInstance(request);
  if (unstarted !== undefined && (await startUnstarted(ctx, unstarted, record))) {
    const logPath = path.join(sandboxConfig.logDirectory ?? '', containerLogPath(container.name, unstarted.restartCount));
    await afterStart(ctx, request, unstarted.id, logPath, record);
    return;
  }
  let imageRef: string;
  // The restart count reads the container's log dir: beside the image check, not after it (it cannot fail).
  const restartCountRead = nextRestartCount(ctx, pod, container, request.status);
  try {
    imageRef = await ctx.puller.ensureImageExists(pod, container, {
      sandboxConfig,
      ...(ctx.runtimeHandler === undefined ? {} : { runtimeHandler: ctx.runtimeHandler }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (err) {
    // Upstream: "Error: ErrImagePull" and the like, the image error's own name; none for a cancelled sync.
    if (signal?.aborted !== true) {
      const reason = RuntimeManagerError.is(err) ? err.reason : errorMessage(err);
      record('', EventType.Warning, EventReason.FailedToCreateContainer, `Error: ${reason}`);
    }
    throw err;
  }
  const restartCount = await restartCountRead;
  let config: ContainerConfig;
  try {
    const targetId = targetContainerId(request);
    config = await containerConfig(ctx, pod, container, imageRef, restartCount, podIPs, targetId);
  } catch (err) {
    record('', EventType.Warning, EventReason.FailedToCreateContainer, `Error: ${errorMessage(err)}`);
    throw new StartFailure(Reason.CreateContainerConfigError, errorMessage(err), { cause: err });
  }

  const containerId = await ctx.starts.run(async () => {
    let id: string;
    try {
      id = (await ctx.runtime.createContainer({ podSandboxId: sandboxId, config, sandboxConfig })).containerId;
    } catch (err) {
      record('', EventType.Warning, EventReason.FailedToCreateContainer, `Error: ${criMessage(err)}`);
      throw new StartFailure(Reason.CreateContainerError, criMessage(err), { cause: err });
    }
    record(id, EventType.Normal, EventReason.CreatedContainer, `Created container: ${container.name}`);
    try {
      await ctx.runtime.startContainer({ containerId: id });
    } catch (err) {
      record(id, EventType.Warning, EventReason.FailedToStartContainer, `Error: ${criMessage(err)}`);
      throw new StartFailure(Reason.RunContainerError, criMessage(err), { cause: err });
    }
    record(id, EventType.Normal, EventReason.StartedContainer, `Started container ${container.name}`);
    return id;
  }, 'high');
  await afterStart(ctx, request, containerId, path.join(sandboxConfig.logDirectory ?? '', config.logPath ?? ''), record);
}

/** How long (checks × interval) a created container's start already under way in the runtime is waited for. */
const UNSTARTED_SETTLE_CHECKS = 10;
const UNSTARTED_SETTLE_INTERVAL_MS = 200;

type RecordEvent = (containerId: string, type: EventType, reason: string, message: string) => void;

/**
 * A container this kubelet (or the one before it) created but never started: the newest instance of the
 * spec, in the created state, created in the current sandbox after it, with the spec's hash. What a
 * kubelet killed between CreateContainer and StartContainer leaves. Upstream creates another instance
 * (restart count 1) and leaves this one to the garbage collector; starting it keeps one container per
 * spec and its restart count.
 */
function unstartedInstance(request: StartContainerRequest): RuntimeContainerStatus | undefined {
  if (request.targetContainerName !== undefined) return undefined;
  const latest = findContainerStatus(request.status, request.container.name);
  const sandbox = request.status.sandboxes[0];
  if (latest === undefined || latest.state !== 'created' || sandbox === undefined || sandbox.id !== request.sandboxId) return undefined;
  if (latest.createdAt < sandbox.createdAt || latest.hash !== hashContainer(request.container)) return undefined;
  return latest;
}

/**
 * Starts an unstarted instance; true when it runs afterwards — also when the StartContainer of the
 * kubelet that created it was still under way and won (the runtime then refuses ours).
 */
async function startUnstarted(ctx: RuntimeContext, instance: RuntimeContainerStatus, record: RecordEvent): Promise<boolean> {
  const started = await ctx.starts.run(async () => {
    try {
      await ctx.runtime.startContainer({ containerId: instance.id });
      return true;
    } catch (err) {
      // The other kubelet's StartContainer may still be running in the runtime: wait for its outcome.
      for (let i = 0; i < UNSTARTED_SETTLE_CHECKS; i++) {
        const state = await ctx.runtime.containerStatus({ containerId: instance.id }).then(
          (r) => r.status?.state,
          () => undefined,
        );
        if (state === 'CONTAINER_RUNNING') return true;
        if (state !== 'CONTAINER_CREATED') break;
        await sleepWith(ctx.clock, UNSTARTED_SETTLE_INTERVAL_MS);
      }
      ctx.logger.info('Could not start a container created before; creating another', { containerId: instance.id, err: criMessage(err) });
      return false;
    }
  }, 'high');
  if (started) record(instance.id, EventType.Normal, EventReason.StartedContainer, `Started container ${instance.name}`);
  return started;
}

/** After a start: the legacy log symlink, then the postStart hook (a failed hook kills the container: PostStartHookError). */
async function afterStart(
  ctx: RuntimeContext,
  request: StartContainerRequest,
  containerId: string,
  logPath: string,
  record: RecordEvent,
): Promise<void> {
  const { pod, container, podIPs, signal } = request;
  await createLegacyLogSymlink(ctx, { pod, containerName: container.name, containerId, logPath });

  const postStart = container.lifecycle?.postStart;
  if (postStart === undefined) return;
  const message = await runLifecycleHandler(hookDeps(ctx), containerId, pod, container, postStart, podIPs[0] ?? '', signal);
  if (message === '') return;
  ctx.logger.warn('Failed to execute PostStartHook', { pod: podFullName(pod), containerName: container.name, err: message });
  // Upstream keeps the hook's output out of the event: it may hold secrets.
  record(containerId, EventType.Warning, EventReason.FailedPostStartHook, 'PostStartHook failed');
  try {
    await killContainer(ctx, {
      pod,
      containerId,
      name: container.name,
      spec: container,
      message: 'FailedPostStartHook',
      reason: ContainerKillReason.FailedPostStartHook,
      podIP: podIPs[0] ?? '',
    });
  } catch (err) {
    ctx.logger.error('Failed to kill container after a failed postStart hook', { containerName: container.name, err: errorMessage(err) });
  }
  throw new StartFailure(Reason.PostStartHookError, message);
}

/**
 * Upstream getTargetID: the newest instance of an ephemeral container's target, whatever its state;
 * undefined without a target. No instance fails the start (CreateContainerConfigError).
 */
function targetContainerId(request: StartContainerRequest): string | undefined {
  const name = request.targetContainerName;
  if (name === undefined || name === '') return undefined;
  const target = findContainerStatus(request.status, name);
  if (target === undefined) throw new Error(`unable to find target container ${name}`);
  return target.id;
}

/** The CRI config of a new container instance: image user check, run options from the helper, termination message and log dirs. */
async function containerConfig(
  ctx: RuntimeContext,
  pod: Pod,
  container: Container,
  imageRef: string,
  restartCount: number,
  podIPs: string[],
  targetId: string | undefined,
): Promise<ContainerConfig> {
  const imageUser = await getImageUser(ctx, imageRef);
  const refused = verifyRunAsNonRoot(pod, container, imageUser);
  if (refused !== '') throw new Error(refused);
  const options = await ctx.helper.generateRunContainerOptions(pod, container, podIPs);
  const mounts = [...options.mounts];
  const terminationPath = container.terminationMessagePath ?? '';
  const logDir = path.join(podLogsDirectory(ctx.podLogsDir, pod.metadata.namespace, pod.metadata.name, pod.metadata.uid), container.name);
  // Two independent file-system steps, side by side.
  const [terminationFile] = await Promise.all([
    terminationPath !== '' && !mounts.some((m) => m.containerPath === terminationPath)
      ? terminationMessageFile(ctx, pod, container)
      : undefined,
    mkdir(logDir, { recursive: true, mode: 0o755 }),
  ]);
  if (terminationFile !== undefined) mounts.push({ containerPath: terminationPath, hostPath: terminationFile, readOnly: false });
  return generateContainerConfig({
    pod,
    container,
    imageRef,
    restartCount,
    options: { ...options, mounts },
    runtimeHandler: ctx.runtimeHandler,
    memoryCapacityBytes: ctx.memoryCapacityBytes,
    cpuCfsQuota: ctx.cpuCfsQuota,
    seccompDefault: ctx.seccompDefault,
    cpusetCpus: ctx.cpusetFor?.(pod, container),
    cpusetMems: ctx.cpusetMemsFor?.(pod, container),
    imageUser,
    ...(targetId === undefined ? {} : { targetId }),
  });
}

/** The restart count for a new instance: from the newest status, else from the log files left (upstream calcRestartCountByLogDir). */
async function nextRestartCount(ctx: RuntimeContext, pod: Pod, container: Container, status: RuntimePodStatus): Promise<number> {
  const latest = findContainerStatus(status, container.name);
  if (latest !== undefined) return latest.restartCount + 1;
  const dir = path.join(podLogsDirectory(ctx.podLogsDir, pod.metadata.namespace, pod.metadata.name, pod.metadata.uid), container.name);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return 0;
  }
  let max = -1;
  for (const e of entries) {
    const m = /^(\d+)\.log$/.exec(e);
    if (m?.[1] !== undefined) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

/** Upstream getImageUser: the image's numeric UID, else its user name; neither set means root (UID 0). */
async function getImageUser(ctx: RuntimeContext, imageRef: string): Promise<ImageUser> {
  const image = (await ctx.images.imageStatus({ image: { image: imageRef }, verbose: false })).image;
  if (image?.uid !== null && image?.uid !== undefined) return { uid: Number(image.uid.value), username: '' };
  if (image !== null && image.username !== '') return { uid: undefined, username: image.username };
  return { uid: 0, username: '' };
}

/** Creates `<podDir>/containers/<name>/<random id>` (mode 0666) for the termination message (upstream makeMounts). */
async function terminationMessageFile(ctx: RuntimeContext, pod: Pod, container: Container): Promise<string> {
  const dir = path.join(ctx.helper.getPodDir(pod.metadata.uid), 'containers', container.name);
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const file = path.join(dir, randomBytes(4).toString('hex'));
  const handle = await open(file, 'w', 0o666);
  try {
    await handle.chmod(0o666);
  } finally {
    await handle.close();
  }
  return file;
}
