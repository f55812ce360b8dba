import os from 'node:os';
import type { Container, Pod } from '@kubelet-ts/api';
import type { Backoff, Clock, EventRecorder, Logger, Metrics } from '@kubelet-ts/common';
import { noopEventRecorder, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { ContainerRuntime, ProbeResults, RuntimeHelper } from '@kubelet-ts/container-runtime';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { ImagePodPullingTimeRecorder, ImagePuller, PullCredentialsFn } from './image-puller.js';
import { createImagePuller } from './image-puller.js';
import { removeContainer } from './internal/container-remove.js';
import type { RuntimeContext } from './internal/context.js';
import { collectGarbage, collectPodGarbage } from './internal/gc.js';
import { killPod } from './internal/kill-pod.js';
import { DEFAULT_CONTAINER_LOGS_DIR } from './internal/log-symlink.js';
import { startMetrics } from './internal/metrics.js';
import { getPodStatus, getPods } from './internal/pod-status.js';
import { Semaphore } from './internal/semaphore.js';
import { syncPod } from './internal/sync-pod.js';

export interface RuntimeManagerOptions {
  runtimeService: RuntimeService;
  imageService: ImageService;
  helper: RuntimeHelper;
  /** Root of pod log directories (upstream --pod-logs-dir). Default /var/log/pods. */
  podLogsDir?: string;
  /**
   * Where a symlink to each started container's log goes, `<pod>_<namespace>_<container>-<id>.log`
   * (upstream ContainerLogsDir, fixed there), for cluster logging agents. Default /var/log/containers.
   * The directory must exist (the kubelet creates it at start); the manager does not create it.
   */
  containerLogsDir?: string;
  probeResults?: ProbeResults;
  clock?: Clock;
  logger?: Logger;
  /**
   * Receives the pod and container events upstream's kuberuntime and image manager record (Pulling,
   * Pulled, Created, Started, Killing, BackOff, Failed, SandboxChanged…). Default: dropped.
   */
  recorder?: EventRecorder;
  /**
   * Where upstream's kubelet_started_pods_total, kubelet_started_pods_errors_total,
   * kubelet_started_containers_total and kubelet_started_containers_errors_total go, and the built-in
   * image puller's kubelet_image_pull_duration_seconds. Default: none.
   */
  metrics?: Metrics;
  /** CRI runtime handler for sandboxes and images (RuntimeClass); default: the runtime's default. */
  runtimeHandler?: string;
  /** Pull one image at a time (default true). */
  serializeImagePulls?: boolean;
  /** With serializeImagePulls false: the most parallel pulls (default unlimited). */
  maxParallelImagePulls?: number;
  /** Image pull back-off; default 10 s doubling to 300 s. */
  imageBackoff?: Backoff;
  /** Replaces the built-in image puller (which then records the image events itself, or not). */
  imagePuller?: ImagePuller;
  /** The registry credentials to try for an image, in order (see ImagePullerOptions.getPullCredentials). */
  getPullCredentials?: PullCredentialsFn;
  /** For the built-in image puller: told of each pod's pulls (the pod startup latency tracker). */
  pullingTimeRecorder?: ImagePodPullingTimeRecorder;
  /** Node memory for the Burstable OOM score formula; default os.totalmem(). */
  memoryCapacityBytes?: number;
  /** Set a CFS quota from CPU limits (upstream --cpu-cfs-quota, default true). */
  cpuCfsQuota?: boolean;
  /**
   * Containers (and ephemeral containers) whose pod and container security contexts name no
   * seccomp profile run with the runtime's default profile instead of unconfined (upstream
   * --seccomp-default / `seccompDefault`, default false).
   */
  seccompDefault?: boolean;
  /**
   * The cpuset a container is created with (upstream's CPU manager, through PreCreateContainer):
   * its exclusive CPUs or the shared pool; undefined leaves the runtime's default (every CPU).
   */
  cpusetFor?: (pod: Pod, container: Container) => string | undefined;
  /**
   * The NUMA nodes a container's memory comes from, as cpuset.mems (upstream's memory manager,
   * through PreCreateContainer): undefined leaves the runtime's default (every node).
   */
  cpusetMemsFor?: (pod: Pod, container: Container) => string | undefined;
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

/** The start limit: a positive integer, else unlimited. */
function startLimit(max: number | undefined): number {
  return max !== undefined && Number.isInteger(max) && max > 0 ? max : Infinity;
}

function newContext(options: RuntimeManagerOptions): RuntimeContext {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const recorder = options.recorder ?? noopEventRecorder;
  const puller =
    options.imagePuller ??
    createImagePuller({
      imageService: options.imageService,
      clock,
      logger,
      recorder,
      ...(options.serializeImagePulls === undefined ? {} : { serializeImagePulls: options.serializeImagePulls }),
      ...(options.maxParallelImagePulls === undefined ? {} : { maxParallelImagePulls: options.maxParallelImagePulls }),
      ...(options.imageBackoff === undefined ? {} : { backoff: options.imageBackoff }),
      ...(options.getPullCredentials === undefined ? {} : { getPullCredentials: options.getPullCredentials }),
      ...(options.pullingTimeRecorder === undefined ? {} : { pullingTimeRecorder: options.pullingTimeRecorder }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
  return {
    runtime: options.runtimeService,
    images: options.imageService,
    helper: options.helper,
    puller,
    probeResults: options.probeResults,
    clock,
    logger,
    recorder,
    podLogsDir: options.podLogsDir ?? '/var/log/pods',
    containerLogsDir: options.containerLogsDir ?? DEFAULT_CONTAINER_LOGS_DIR,
    runtimeHandler: options.runtimeHandler,
    memoryCapacityBytes: options.memoryCapacityBytes ?? os.totalmem(),
    cpuCfsQuota: options.cpuCfsQuota ?? true,
    seccompDefault: options.seccompDefault ?? false,
    cpusetFor: options.cpusetFor,
    cpusetMemsFor: options.cpusetMemsFor,
    httpHookTimeoutMs: options.httpHookTimeoutMs ?? 10_000,
    starts: new Semaphore(startLimit(options.maxParallelStarts)),
    startMetrics: startMetrics(options.metrics ?? noopMetrics),
  };
}

/**
 * Creates the CRI-backed runtime manager (upstream kubeGenericRuntimeManager): it converges pods
 * through RuntimeService/ImageService, reads their status back from CRI labels and annotations,
 * stops them with preStop hooks and grace periods, and collects dead containers. Each method is
 * one function over the shared context (internal/: pod-status, sandbox, container-start,
 * container-kill, kill-pod, termination-order, sync-pod, gc).
 */
export function createRuntimeManager(options: RuntimeManagerOptions): ContainerRuntime {
  const ctx = newContext(options);
  return {
    getPods: (all) => getPods(ctx, all),
    getPodStatus: (uid, name, namespace) => getPodStatus(ctx, uid, name, namespace),
    syncPod: (pod, status, crashLoopBackoff, signal) => syncPod(ctx, pod, status, crashLoopBackoff, signal),
    killPod: (pod, running, gracePeriodOverrideSeconds) => killPod(ctx, pod, running, gracePeriodOverrideSeconds),
    garbageCollect: (policy, allSourcesReady, isPodDeleted) =>
      collectGarbage({
        runtimeService: ctx.runtime,
        clock: ctx.clock,
        logger: ctx.logger,
        podLogsDir: ctx.podLogsDir,
        containerLogsDir: ctx.containerLogsDir,
        policy,
        allSourcesReady,
        isPodDeleted,
        removeContainer: (id) => removeContainer(ctx, id),
      }),
    removeDeletedPod: (status) =>
      collectPodGarbage({ runtimeService: ctx.runtime, logger: ctx.logger, removeContainer: (id) => removeContainer(ctx, id) }, status),
    async status() {
      const response = await ctx.runtime.status({ verbose: false });
      return (response.status?.conditions ?? []).map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message }));
    },
  };
}
