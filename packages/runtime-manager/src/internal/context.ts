import type { Container, Pod } from '@kubelet-ts/api';
import type { Clock, EventRecorder, Logger } from '@kubelet-ts/common';
import type { ProbeResults, RuntimeHelper } from '@kubelet-ts/container-runtime';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { ImagePuller } from '../image-puller.js';
import type { HandlerRunnerDeps } from './lifecycle.js';
import type { StartMetrics } from './metrics.js';
import type { Semaphore } from './semaphore.js';

/**
 * What every piece of the runtime manager works with (upstream: the fields of
 * kubeGenericRuntimeManager). Built once by createRuntimeManager from its options.
 */
export interface RuntimeContext {
  readonly runtime: RuntimeService;
  readonly images: ImageService;
  readonly helper: RuntimeHelper;
  readonly puller: ImagePuller;
  readonly probeResults: ProbeResults | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Where the pod and container events go (Pulled, Created, Started, Killing, BackOff…). */
  readonly recorder: EventRecorder;
  /** Root of the pod log directories. */
  readonly podLogsDir: string;
  /** Where the `<pod>_<namespace>_<container>-<id>.log` symlinks to the container logs go. */
  readonly containerLogsDir: string;
  /** CRI runtime handler for sandboxes and images; undefined for the runtime's default. */
  readonly runtimeHandler: string | undefined;
  readonly memoryCapacityBytes: number;
  readonly cpuCfsQuota: boolean;
  readonly seccompDefault: boolean;
  readonly cpusetFor: ((pod: Pod, container: Container) => string | undefined) | undefined;
  readonly cpusetMemsFor: ((pod: Pod, container: Container) => string | undefined) | undefined;
  readonly httpHookTimeoutMs: number;
  /** Bounds RunPodSandbox calls and CreateContainer + StartContainer pairs together (maxParallelStarts). */
  readonly starts: Semaphore;
  /** Upstream's started pods and containers counters, and the sleep hooks cut short. */
  readonly startMetrics: StartMetrics;
}

/** What the postStart/preStop handler runner needs. */
export function hookDeps(ctx: RuntimeContext): HandlerRunnerDeps {
  return {
    runtimeService: ctx.runtime,
    clock: ctx.clock,
    httpTimeoutMs: ctx.httpHookTimeoutMs,
    sleepTerminatedEarly: ctx.startMetrics.sleepTerminatedEarly,
  };
}
