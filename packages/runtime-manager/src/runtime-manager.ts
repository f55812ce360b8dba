import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, unlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Container, Pod } from '@kubelet-ts/api';
import { Reason, isRestartableInitContainer, podFullName } from '@kubelet-ts/api';
import type { Backoff, Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type {
  AuthConfig,
  ContainerStatus,
  ImageService,
  PodSandboxConfig,
  PodSandboxStatus,
  RuntimeService,
} from '@kubelet-ts/cri-client';
import { CriError, isNotFound } from '@kubelet-ts/cri-client';
import {
  CONTAINER_HASH_ANNOTATION,
  KUBERNETES_POD_UID_LABEL,
  backoffKey,
  findContainerStatus,
  toRunningPod,
} from '@kubelet-ts/container-runtime';
import { ContainerKillReason, computePodActions } from './compute-pod-actions.js';
import { RuntimeManagerError, isRuntimeManagerError } from './errors.js';
import type { RuntimeManagerErrorCode } from './errors.js';
import type { ImagePuller } from './image-puller.js';
import { createImagePuller } from './image-puller.js';
import { collectGarbage } from './internal/gc.js';
import { generateContainerConfig, generatePodSandboxConfig, podLogsDirectory, verifyRunAsNonRoot } from './internal/config.js';
import type { ImageUser } from './internal/config.js';
import { formatGoDuration } from './internal/go-duration.js';
import { formatPod, runLifecycleHandler } from './internal/lifecycle.js';
import { MAX_TERMINATION_MESSAGE_BYTES, readFileHead, readLastLogLines } from './internal/logs.js';
import { Semaphore } from './internal/semaphore.js';
import { decodeContainerAnnotations, decodeContainerLabels, decodeSandboxLabels } from './labels.js';
import type {
  ContainerGCPolicy,
  ContainerRuntime,
  PodSyncResult,
  ProbeResults,
  RunningContainer,
  RunningPod,
  RunningSandbox,
  RuntimeCondition,
  RuntimeContainerState,
  RuntimeContainerStatus,
  RuntimeHelper,
  RuntimePodStatus,
  RuntimeSandboxStatus,
  SyncResult,
} from '@kubelet-ts/container-runtime';

/** Upstream minimumGracePeriodInSeconds: containers always get this long to stop. */
export const MINIMUM_GRACE_PERIOD_SECONDS = 2;

export interface RuntimeManagerOptions {
  runtimeService: RuntimeService;
  imageService: ImageService;
  helper: RuntimeHelper;
  /** Root of pod log directories (upstream --pod-logs-dir). Default /var/log/pods. */
  podLogsDir?: string;
  probeResults?: ProbeResults;
  clock?: Clock;
  logger?: Logger;
  /** CRI runtime handler for sandboxes and images (RuntimeClass); default: the runtime's default. */
  runtimeHandler?: string;
  /** Pull one image at a time (default true). */
  serializeImagePulls?: boolean;
  /** With serializeImagePulls false: the most parallel pulls (default unlimited). */
  maxParallelImagePulls?: number;
  /** Image pull back-off; default 10 s doubling to 300 s. */
  imageBackoff?: Backoff;
  /** Replaces the built-in image puller. */
  imagePuller?: ImagePuller;
  /** Registry credentials for an image (from imagePullSecrets). */
  getPullCredentials?: (image: string, pod: Pod) => AuthConfig | undefined;
  /** Node memory for the Burstable OOM score formula; default os.totalmem(). */
  memoryCapacityBytes?: number;
  /** Set a CFS quota from CPU limits (upstream --cpu-cfs-quota, default true). */
  cpuCfsQuota?: boolean;
  /** Timeout of one httpGet lifecycle hook request (default 10 s). */
  httpHookTimeoutMs?: number;
  /**
   * The most pod starts in the runtime at once (kubelet-ts): RunPodSandbox calls, and
   * CreateContainer + StartContainer pairs, counted together; container starts go before queued
   * sandboxes so started pods finish first. Image pulls and hooks are outside the limit.
   * Default unlimited, as upstream.
   */
  maxParallelStarts?: number;
}

type FailedResult = SyncResult & { reason: string; message: string };

class StartFailure extends Error {
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

/** The shortest back-off wait, when every failed result is a back-off with a known end. */
function retryAfter(results: SyncResult[]): number | undefined {
  const failures = results.filter((r) => r.reason !== undefined);
  if (failures.length === 0 || failures.some((r) => r.retryAfterMs === undefined)) return undefined;
  return Math.min(...failures.map((r) => r.retryAfterMs as number));
}

/** The start limit: a positive integer, else unlimited. */
function startLimit(max: number | undefined): number {
  return max !== undefined && Number.isInteger(max) && max > 0 ? max : Infinity;
}

/** CRI message without the client's "Method: CODE:" prefix, as upstream shows grpc status messages. */
function criMessage(err: unknown): string {
  if (err instanceof CriError && err.details !== '') return err.details;
  return errorMessage(err);
}

/** CRI nanosecond timestamps (decimal strings) to milliseconds. */
function nsToMs(ns: string | number | undefined): number {
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

function failed(results: SyncResult[]): FailedResult | undefined {
  return results.find((r): r is FailedResult => r.reason !== undefined);
}

function resultError(results: SyncResult[]): Error | undefined {
  const first = failed(results);
  if (first === undefined) return undefined;
  return new RuntimeManagerError(reasonToCode(first.reason), `${first.action} ${first.target}: ${first.message}`);
}

const KNOWN_CODES = new Set<string>([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'ImageInspectError',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PostStartHookError',
  'PreStopHookError',
  'KillContainerError',
  'CreatePodSandboxError',
  'ConfigPodSandboxError',
  'KillPodSandboxError',
]);

function reasonToCode(reason: string): RuntimeManagerErrorCode {
  return KNOWN_CODES.has(reason) ? (reason as RuntimeManagerErrorCode) : 'RuntimeError';
}

/**
 * Creates the CRI-backed runtime manager (upstream kubeGenericRuntimeManager): it converges pods
 * through RuntimeService/ImageService, reads their status back from CRI labels and annotations,
 * stops them with preStop hooks and grace periods, and collects dead containers.
 */
export function createRuntimeManager(options: RuntimeManagerOptions): ContainerRuntime {
  return new RuntimeManager(options);
}

class RuntimeManager implements ContainerRuntime {
  readonly #runtime: RuntimeService;
  readonly #images: ImageService;
  readonly #helper: RuntimeHelper;
  readonly #podLogsDir: string;
  readonly #probeResults: ProbeResults | undefined;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #runtimeHandler: string | undefined;
  readonly #puller: ImagePuller;
  readonly #memoryCapacityBytes: number;
  readonly #cpuCfsQuota: boolean;
  readonly #httpHookTimeoutMs: number;
  readonly #starts: Semaphore;

  constructor(options: RuntimeManagerOptions) {
    this.#runtime = options.runtimeService;
    this.#images = options.imageService;
    this.#helper = options.helper;
    this.#podLogsDir = options.podLogsDir ?? '/var/log/pods';
    this.#probeResults = options.probeResults;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#runtimeHandler = options.runtimeHandler;
    this.#memoryCapacityBytes = options.memoryCapacityBytes ?? os.totalmem();
    this.#cpuCfsQuota = options.cpuCfsQuota ?? true;
    this.#httpHookTimeoutMs = options.httpHookTimeoutMs ?? 10_000;
    this.#starts = new Semaphore(startLimit(options.maxParallelStarts));
    this.#puller =
      options.imagePuller ??
      createImagePuller({
        imageService: options.imageService,
        clock: this.#clock,
        logger: this.#logger,
        ...(options.serializeImagePulls === undefined ? {} : { serializeImagePulls: options.serializeImagePulls }),
        ...(options.maxParallelImagePulls === undefined ? {} : { maxParallelImagePulls: options.maxParallelImagePulls }),
        ...(options.imageBackoff === undefined ? {} : { backoff: options.imageBackoff }),
        ...(options.getPullCredentials === undefined ? {} : { getPullCredentials: options.getPullCredentials }),
      });
  }

  // ---------------------------------------------------------------- listing and status

  async getPods(all: boolean): Promise<RunningPod[]> {
    const [sandboxes, containers] = await Promise.all([
      this.#runtime.listPodSandbox(all ? {} : { filter: { state: { state: 'SANDBOX_READY' } } }),
      this.#runtime.listContainers(all ? {} : { filter: { state: { state: 'CONTAINER_RUNNING' } } }),
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

  async getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    const listed = await this.#runtime.listPodSandbox({ filter: { labelSelector: { [KUBERNETES_POD_UID_LABEL]: uid } } });
    const ordered = [...listed.items].sort((a, b) => nsToMs(b.createdAt) - nsToMs(a.createdAt));
    const sandboxes: RuntimeSandboxStatus[] = [];
    let ips: string[] = [];
    for (const [idx, s] of ordered.entries()) {
      let status: PodSandboxStatus | null;
      try {
        status = (await this.#runtime.podSandboxStatus({ podSandboxId: s.id, verbose: false })).status;
      } catch (err) {
        // Removed between the list and the status call: as if it had not been listed.
        if (isNotFound(err)) continue;
        throw err;
      }
      if (status === null) continue;
      const sandbox = this.#toSandboxStatus(status);
      sandboxes.push(sandbox);
      if (idx === 0 && sandbox.state === 'ready' && sandbox.ip !== undefined && sandbox.ip !== '') {
        ips = [sandbox.ip, ...sandbox.additionalIps];
      }
    }
    const containers = await this.#containerStatuses(uid);
    return { uid, name, namespace, ips, sandboxes, containers, timestamp: this.#clock.now() };
  }

  #toSandboxStatus(status: PodSandboxStatus): RuntimeSandboxStatus {
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

  async #containerStatuses(uid: string): Promise<RuntimeContainerStatus[]> {
    const listed = await this.#runtime.listContainers({ filter: { labelSelector: { [KUBERNETES_POD_UID_LABEL]: uid } } });
    // One ContainerStatus call per container, concurrently: a pod with many dead instances stays cheap.
    const converted = await Promise.all(
      listed.containers.map(async (c): Promise<RuntimeContainerStatus | undefined> => {
        let status: ContainerStatus | null;
        try {
          status = (await this.#runtime.containerStatus({ containerId: c.id, verbose: false })).status;
        } catch (err) {
          // Removed between the list and the status call: as if it had not been listed.
          if (isNotFound(err)) return undefined;
          throw err;
        }
        return status === null ? undefined : this.#toContainerStatus(status);
      }),
    );
    const out = converted.filter((c): c is RuntimeContainerStatus => c !== undefined);
    return out.sort((a, b) => b.createdAt - a.createdAt);
  }

  async #toContainerStatus(status: ContainerStatus): Promise<RuntimeContainerStatus | undefined> {
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
      const mount = status.mounts.find((m) => m.containerPath === annotations.terminationMessagePath && annotations.terminationMessagePath !== '');
      if (mount !== undefined) termination = await readFileHead(mount.hostPath, MAX_TERMINATION_MESSAGE_BYTES);
      if (termination === '' && fallbackToLogs && status.logPath !== '') termination = await readLastLogLines(status.logPath);
      if (termination !== '') message = message === '' ? termination : `${message}: ${termination}`;
    }
    if (message !== '') out.message = message;
    return out;
  }

  // ---------------------------------------------------------------- SyncPod

  async syncPod(pod: Pod, status: RuntimePodStatus, crashLoopBackoff: Backoff, signal?: AbortSignal): Promise<PodSyncResult> {
    const results: SyncResult[] = [];
    const log = this.#logger.child({ pod: `${pod.metadata.namespace}/${pod.metadata.name}`, podUID: pod.metadata.uid });
    const actions = computePodActions(pod, status, this.#probeResults === undefined ? {} : { probeResults: this.#probeResults });
    log.debug('computePodActions', { actions });

    if (actions.killPod) {
      const killed = await this.killPod(pod, toRunningPod(status));
      results.push(...killed.results);
      if (killed.error !== undefined) return { results, error: killed.error };
      // Nothing left to run (all done, or a failed init container under restartPolicy Never).
      if (!actions.createSandbox) return { results };
      await this.#purgeInitContainers(pod, status);
    } else {
      for (const kill of actions.containersToKill) {
        const result: SyncResult = { action: 'KillContainer', target: kill.name };
        results.push(result);
        try {
          await this.#killContainer(pod, kill.id, kill.name, kill.container, kill.message, kill.reason, undefined, status.ips[0] ?? '');
        } catch (err) {
          result.reason = Reason.KillContainerError;
          result.message = errorMessage(err);
          log.error('killContainer for pod failed', { containerName: kill.name, containerID: kill.id, err: errorMessage(err) });
          return { results, error: resultError(results) };
        }
      }
    }

    await this.#pruneInitContainersBeforeStart(pod, status);

    let podIPs = status.ips;
    let sandboxId = actions.sandboxId;
    if (actions.createSandbox) {
      const result: SyncResult = { action: 'CreatePodSandbox', target: podFullName(pod) };
      results.push(result);
      try {
        sandboxId = await this.#createPodSandbox(pod, actions.attempt);
      } catch (err) {
        result.reason = Reason.CreatePodSandboxError;
        result.message = `Failed to create sandbox for pod ${JSON.stringify(formatPod(pod))}: ${criMessage(err)}`;
        log.error('CreatePodSandbox for pod failed', { err: errorMessage(err) });
        return { results, error: resultError(results) };
      }
      try {
        const created = (await this.#runtime.podSandboxStatus({ podSandboxId: sandboxId, verbose: false })).status;
        if (created === null) throw new Error('pod sandbox status is nil');
        if (pod.spec.hostNetwork !== true) {
          const s = this.#toSandboxStatus(created);
          podIPs = s.ip === undefined ? [] : [s.ip, ...s.additionalIps];
        }
      } catch (err) {
        const error = RuntimeManagerError.from(err);
        return { results, error };
      }
    }

    // A running pod's periodic sync starts nothing: no sandbox config (DNS from resolv.conf) to generate.
    if (actions.initContainersToStart.length === 0 && actions.containersToStart.length === 0) {
      const error = resultError(results);
      return error === undefined ? { results } : { results, error };
    }
    let sandboxConfig: PodSandboxConfig;
    try {
      sandboxConfig = await this.#sandboxConfig(pod, actions.attempt);
    } catch (err) {
      results.push({
        action: 'ConfigPodSandbox',
        target: sandboxId,
        reason: Reason.ConfigPodSandboxError,
        message: `GeneratePodSandboxConfig for pod "${podFullName(pod)}" failed: ${errorMessage(err)}`,
      });
      return { results, error: resultError(results) };
    }

    const start = async (container: Container, action: 'StartContainer' | 'InitContainer'): Promise<boolean> => {
      // A cancelled sync (the pod worker moved on) starts nothing more.
      if (signal?.aborted === true) return false;
      const result: SyncResult = { action, target: container.name };
      results.push(result);
      try {
        this.#checkBackoff(pod, container, status, crashLoopBackoff);
        await this.#startContainer(sandboxId, sandboxConfig, pod, container, status, podIPs, signal);
        return true;
      } catch (err) {
        if (err instanceof StartFailure) {
          result.reason = err.reason;
          result.message = err.message;
          if (err.retryAfterMs !== undefined) result.retryAfterMs = err.retryAfterMs;
        } else if (isRuntimeManagerError(err)) {
          result.reason = err.code;
          result.message = err.message;
        } else {
          result.reason = Reason.RunContainerError;
          result.message = errorMessage(err);
        }
        log.info('Container start failed', { containerName: container.name, reason: result.reason, err: result.message });
        return false;
      }
    };

    const initContainers = pod.spec.initContainers ?? [];
    for (const idx of actions.initContainersToStart) {
      const container = initContainers[idx];
      if (container === undefined) continue;
      const restartable = isRestartableInitContainer(container);
      const ok = await start(container, restartable ? 'StartContainer' : 'InitContainer');
      // A failed sidecar does not stop the others; a failed init container stops initialization.
      if (!ok && !restartable) break;
    }
    const initFailed = results.some((r) => r.action === 'InitContainer' && r.reason !== undefined);
    for (const idx of initFailed ? [] : actions.containersToStart) {
      const container = pod.spec.containers[idx];
      if (container !== undefined) await start(container, 'StartContainer');
    }
    if (signal?.aborted === true) return { results, error: RuntimeManagerError.from(signal.reason ?? new Error('syncPod aborted')) };
    const error = resultError(results);
    if (error === undefined) return { results };
    const wait = retryAfter(results);
    return wait === undefined ? { results, error } : { results, error, retryAfterMs: wait };
  }

  /** Upstream doBackOff: a container that exited and is still in its CrashLoopBackOff window is not started. */
  #checkBackoff(pod: Pod, container: Container, status: RuntimePodStatus, backoff: Backoff): void {
    const exited = status.containers.find((c) => c.name === container.name && c.state === 'exited');
    if (exited === undefined) return;
    const key = backoffKey(pod, container);
    const since = exited.finishedAt ?? exited.createdAt;
    if (backoff.isInBackoffSince(key, since)) {
      const delayMs = backoff.get(key);
      throw new StartFailure(
        Reason.CrashLoopBackOff,
        `back-off ${formatGoDuration(delayMs)} restarting failed container=${container.name} pod=${formatPod(pod)}`,
        { retryAfterMs: Math.max(0, since + delayMs - this.#clock.now()) },
      );
    }
    backoff.next(key);
  }

  async #sandboxConfig(pod: Pod, attempt: number): Promise<PodSandboxConfig> {
    const dns = await this.#helper.getPodDNS(pod);
    return generatePodSandboxConfig({
      pod,
      attempt,
      podLogsDir: this.#podLogsDir,
      dns,
      cgroupParent: this.#helper.getPodCgroupParent(pod),
    });
  }

  async #createPodSandbox(pod: Pod, attempt: number): Promise<string> {
    const config = await this.#sandboxConfig(pod, attempt);
    await mkdir(config.logDirectory ?? '', { recursive: true, mode: 0o755 });
    const response = await this.#starts.run(() =>
      this.#runtime.runPodSandbox({
        config,
        ...(this.#runtimeHandler === undefined ? {} : { runtimeHandler: this.#runtimeHandler }),
      }),
    );
    return response.podSandboxId;
  }

  /** The restart count for a new instance: from the newest status, else from the log files left (upstream calcRestartCountByLogDir). */
  async #restartCount(pod: Pod, container: Container, status: RuntimePodStatus): Promise<number> {
    const latest = findContainerStatus(status, container.name);
    if (latest !== undefined) return latest.restartCount + 1;
    const dir = path.join(podLogsDirectory(this.#podLogsDir, pod.metadata.namespace, pod.metadata.name, pod.metadata.uid), container.name);
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

  async #startContainer(
    sandboxId: string,
    sandboxConfig: PodSandboxConfig,
    pod: Pod,
    container: Container,
    status: RuntimePodStatus,
    podIPs: string[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const imageRef = await this.#puller.ensureImageExists(pod, container, {
      sandboxConfig,
      ...(this.#runtimeHandler === undefined ? {} : { runtimeHandler: this.#runtimeHandler }),
      ...(signal === undefined ? {} : { signal }),
    });

    const restartCount = await this.#restartCount(pod, container, status);
    let config;
    try {
      const imageUser = await this.#imageUser(imageRef);
      const refused = verifyRunAsNonRoot(pod, container, imageUser);
      if (refused !== '') throw new Error(refused);
      const options = await this.#helper.generateRunContainerOptions(pod, container, podIPs);
      const mounts = [...options.mounts];
      const terminationPath = container.terminationMessagePath ?? '';
      if (terminationPath !== '' && !mounts.some((m) => m.containerPath === terminationPath)) {
        mounts.push({ containerPath: terminationPath, hostPath: await this.#terminationMessageFile(pod, container), readOnly: false });
      }
      const logDir = path.join(podLogsDirectory(this.#podLogsDir, pod.metadata.namespace, pod.metadata.name, pod.metadata.uid), container.name);
      await mkdir(logDir, { recursive: true, mode: 0o755 });
      config = generateContainerConfig({
        pod,
        container,
        imageRef,
        restartCount,
        options: { ...options, mounts },
        runtimeHandler: this.#runtimeHandler,
        memoryCapacityBytes: this.#memoryCapacityBytes,
        cpuCfsQuota: this.#cpuCfsQuota,
        imageUser,
      });
    } catch (err) {
      throw new StartFailure(Reason.CreateContainerConfigError, errorMessage(err), { cause: err });
    }

    const containerId = await this.#starts.run(async () => {
      let id: string;
      try {
        id = (await this.#runtime.createContainer({ podSandboxId: sandboxId, config, sandboxConfig })).containerId;
      } catch (err) {
        throw new StartFailure(Reason.CreateContainerError, criMessage(err), { cause: err });
      }
      try {
        await this.#runtime.startContainer({ containerId: id });
      } catch (err) {
        throw new StartFailure(Reason.RunContainerError, criMessage(err), { cause: err });
      }
      return id;
    }, 'high');

    const postStart = container.lifecycle?.postStart;
    if (postStart !== undefined) {
      const message = await runLifecycleHandler(
        { runtimeService: this.#runtime, clock: this.#clock, httpTimeoutMs: this.#httpHookTimeoutMs },
        containerId,
        pod,
        container,
        postStart,
        podIPs[0] ?? '',
        signal,
      );
      if (message !== '') {
        this.#logger.warn('Failed to execute PostStartHook', { pod: podFullName(pod), containerName: container.name, err: message });
        try {
          await this.#killContainer(pod, containerId, container.name, container, 'FailedPostStartHook', ContainerKillReason.FailedPostStartHook, undefined, podIPs[0] ?? '');
        } catch (err) {
          this.#logger.error('Failed to kill container after a failed postStart hook', { containerName: container.name, err: errorMessage(err) });
        }
        throw new StartFailure(Reason.PostStartHookError, message);
      }
    }
  }

  /** Upstream getImageUser: the image's numeric UID, else its user name; neither set means root (UID 0). */
  async #imageUser(imageRef: string): Promise<ImageUser> {
    const image = (await this.#images.imageStatus({ image: { image: imageRef }, verbose: false })).image;
    if (image?.uid !== null && image?.uid !== undefined) return { uid: Number(image.uid.value), username: '' };
    if (image !== null && image.username !== '') return { uid: undefined, username: image.username };
    return { uid: 0, username: '' };
  }

  /** Creates `<podDir>/containers/<name>/<random id>` (mode 0666) for the termination message (upstream makeMounts). */
  async #terminationMessageFile(pod: Pod, container: Container): Promise<string> {
    const dir = path.join(this.#helper.getPodDir(pod.metadata.uid), 'containers', container.name);
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

  /** A new sandbox restarts initialization: remove every old init container instance (upstream purgeInitContainers). */
  async #purgeInitContainers(pod: Pod, status: RuntimePodStatus): Promise<void> {
    const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
    for (const c of status.containers) {
      if (!names.has(c.name) || c.state === 'running') continue;
      await this.#removeContainer(c.id).catch((err: unknown) =>
        this.#logger.warn('Failed to remove pod init container', { containerName: c.name, containerID: c.id, err: errorMessage(err) }),
      );
    }
  }

  /** Keep only the newest exited instance of each init container (upstream pruneInitContainersBeforeStart). */
  async #pruneInitContainersBeforeStart(pod: Pod, status: RuntimePodStatus): Promise<void> {
    const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
    const seen = new Set<string>();
    for (const c of status.containers) {
      if (!names.has(c.name) || c.state !== 'exited') continue;
      if (!seen.has(c.name)) {
        seen.add(c.name);
        continue;
      }
      await this.#removeContainer(c.id).catch((err: unknown) =>
        this.#logger.warn('Failed to remove pod init container', { containerName: c.name, containerID: c.id, err: errorMessage(err) }),
      );
    }
  }

  /**
   * Removes a container and its log files: the current one and those rotated next to it
   * (`<log>.<timestamp>[.gz]`, as the log manager's Clean does upstream in removeContainerLog).
   */
  async #removeContainer(containerId: string): Promise<void> {
    try {
      const status = (await this.#runtime.containerStatus({ containerId, verbose: false })).status;
      if (status !== null && status.logPath !== '') await removeLogFiles(status.logPath);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    await this.#runtime.removeContainer({ containerId }, { ignoreNotFound: true });
  }

  // ---------------------------------------------------------------- KillPod

  async killPod(pod: Pod | undefined, running: RunningPod, gracePeriodOverrideSeconds?: number): Promise<PodSyncResult> {
    const results: SyncResult[] = [];
    const toStop = running.containers.filter((c) => c.state !== 'exited');
    let podIP: string | undefined;
    const ipOf = async (sandboxId: string): Promise<string> => {
      if (podIP !== undefined) return podIP;
      try {
        podIP = (await this.#runtime.podSandboxStatus({ podSandboxId: sandboxId, verbose: false })).status?.network?.ip ?? '';
      } catch {
        podIP = '';
      }
      return podIP;
    };
    const started = this.#clock.now();
    const kill = async (c: RunningContainer, deadline: number | undefined): Promise<SyncResult> => {
      const result: SyncResult = { action: 'KillContainer', target: c.name };
      try {
        const spec = pod === undefined ? undefined : [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((s) => s.name === c.name);
        await this.#killContainer(pod, c.id, c.name, spec, '', ContainerKillReason.None, gracePeriodOverrideSeconds, undefined, () => ipOf(c.sandboxId), deadline);
      } catch (err) {
        result.reason = Reason.KillContainerError;
        result.message = errorMessage(err);
      }
      return result;
    };
    // Sidecars (restartable init containers) outlive the regular containers and stop last, in
    // reverse order of their start, within what is left of the pod's grace period (KEP-753).
    const sidecarOrder = (pod?.spec.initContainers ?? []).filter(isRestartableInitContainer).map((c) => c.name);
    const sidecars = toStop.filter((c) => sidecarOrder.includes(c.name)).sort((a, b) => sidecarOrder.indexOf(b.name) - sidecarOrder.indexOf(a.name));
    const regular = toStop.filter((c) => !sidecarOrder.includes(c.name));
    const containerResults = await Promise.all(regular.map((c) => kill(c, undefined)));
    if (sidecars.length > 0 && pod !== undefined) {
      const podGrace = gracePeriodOverrideSeconds ?? pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? MINIMUM_GRACE_PERIOD_SECONDS;
      const deadline = started + podGrace * 1000;
      for (const c of sidecars) containerResults.push(await kill(c, deadline));
    }
    results.push(...containerResults);

    const sandboxResult: SyncResult = { action: 'KillPodSandbox', target: running.uid };
    results.push(sandboxResult);
    for (const s of running.sandboxes) {
      try {
        await this.#runtime.stopPodSandbox({ podSandboxId: s.id }, { ignoreNotFound: true });
      } catch (err) {
        sandboxResult.reason = Reason.KillPodSandboxError;
        sandboxResult.message = criMessage(err);
        this.#logger.error('Failed to stop sandbox', { podSandboxID: s.id, err: errorMessage(err) });
      }
    }
    const error = resultError(results);
    if (error === undefined) return { results };
    const wait = retryAfter(results);
    return wait === undefined ? { results, error } : { results, error, retryAfterMs: wait };
  }

  /**
   * Upstream killContainer: the grace period (override, else the pod's deletion grace period, else
   * its terminationGracePeriodSeconds, else what the container's annotations recorded when the spec
   * is gone, else 2 s), the preStop hook inside it, then StopContainer with what is left (at least 2 s).
   */
  async #killContainer(
    pod: Pod | undefined,
    containerId: string,
    name: string,
    spec: Container | undefined,
    message: string,
    reason: ContainerKillReason,
    gracePeriodOverrideSeconds: number | undefined,
    podIP: string | undefined,
    podIPLookup?: () => Promise<string>,
    deadline?: number,
  ): Promise<void> {
    let effectivePod = pod;
    let container = spec;
    if (effectivePod === undefined || container === undefined) {
      // The spec is gone (the kubelet restarted after the pod was deleted): rebuild what matters from annotations.
      const restored = await this.#restoreSpecs(containerId, name, pod);
      if (restored === undefined) {
        await this.#runtime.stopContainer({ containerId, timeout: gracePeriodOverrideSeconds ?? MINIMUM_GRACE_PERIOD_SECONDS }, { ignoreNotFound: true });
        return;
      }
      effectivePod = restored.pod;
      container = restored.container;
    }
    let grace = terminationGracePeriod(effectivePod, container, reason);
    if (gracePeriodOverrideSeconds !== undefined) grace = gracePeriodOverrideSeconds;
    // A sidecar stopped after the others gets only what is left of the pod's grace period.
    if (deadline !== undefined) grace = Math.min(grace, Math.max(0, Math.ceil((deadline - this.#clock.now()) / 1000)));
    this.#logger.info('Killing container with a grace period', {
      pod: podFullName(effectivePod),
      containerName: name,
      containerID: containerId,
      gracePeriod: grace,
      reason: message === '' ? `Stopping container ${name}` : message,
    });

    const preStop = container.lifecycle?.preStop;
    if (preStop !== undefined && grace > 0) {
      const started = this.#clock.now();
      const ip = podIP ?? (preStop.httpGet !== undefined && podIPLookup !== undefined ? await podIPLookup() : '');
      const controller = new AbortController();
      const hook = runLifecycleHandler(
        { runtimeService: this.#runtime, clock: this.#clock, httpTimeoutMs: this.#httpHookTimeoutMs },
        containerId,
        effectivePod,
        container,
        preStop,
        ip,
        controller.signal,
      );
      const timer = this.#clock.sleep(grace * 1000, controller.signal).then(
        () => 'timeout' as const,
        () => 'aborted' as const,
      );
      const outcome = await Promise.race([hook, timer]);
      controller.abort();
      if (outcome === 'timeout') {
        this.#logger.warn('PreStop hook not completed in grace period', { containerName: name, containerID: containerId, gracePeriod: grace });
      } else if (outcome !== '' && outcome !== 'aborted') {
        this.#logger.warn('PreStop hook failed', { containerName: name, containerID: containerId, err: outcome });
      }
      grace -= Math.trunc((this.#clock.now() - started) / 1000);
    }
    if (grace < MINIMUM_GRACE_PERIOD_SECONDS) grace = MINIMUM_GRACE_PERIOD_SECONDS;
    await this.#runtime.stopContainer({ containerId, timeout: grace }, { ignoreNotFound: true });
  }

  async #restoreSpecs(containerId: string, name: string, pod: Pod | undefined): Promise<{ pod: Pod; container: Container } | undefined> {
    let status: ContainerStatus | null;
    try {
      status = (await this.#runtime.containerStatus({ containerId, verbose: false })).status;
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

  // ---------------------------------------------------------------- GC and status

  async garbageCollect(policy: ContainerGCPolicy, allSourcesReady: boolean, isPodDeleted: (uid: string) => boolean): Promise<void> {
    await collectGarbage({
      runtimeService: this.#runtime,
      clock: this.#clock,
      logger: this.#logger,
      podLogsDir: this.#podLogsDir,
      policy,
      allSourcesReady,
      isPodDeleted,
      removeContainer: (id) => this.#removeContainer(id),
    });
  }

  async status(): Promise<RuntimeCondition[]> {
    const response = await this.#runtime.status({ verbose: false });
    return (response.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message }));
  }
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


/** Removes a container's log file and its rotated files; missing files are fine. */
async function removeLogFiles(logPath: string): Promise<void> {
  const dir = path.dirname(logPath);
  const rotatedPrefix = `${path.basename(logPath)}.`;
  const names = await readdir(dir).catch(() => [] as string[]);
  const rotated = names.filter((name) => name.startsWith(rotatedPrefix)).map((name) => path.join(dir, name));
  await Promise.all([logPath, ...rotated].map((file) => unlink(file).catch(() => undefined)));
}
