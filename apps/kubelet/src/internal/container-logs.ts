import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { parseQuantity } from '@kubelet-ts/api';
import { durationMs } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { createContainerLogManager } from '@kubelet-ts/container-logs';
import type { ContainerLogManager, LogRuntime } from '@kubelet-ts/container-logs';

export type ContainerLogsConfig = Pick<KubeletConfiguration, 'containerLogMaxSize' | 'containerLogMaxFiles' | 'containerLogMaxWorkers' | 'containerLogMonitorInterval'>;

/**
 * The container log rotation manager from the kubelet configuration (upstream NewContainerLogManager):
 * containerLogMaxSize is a quantity in bytes (a negative one disables rotation), containerLogMaxFiles,
 * containerLogMaxWorkers and containerLogMonitorInterval as configured (validated by @kubelet-ts/config).
 * @throws ContainerLogsError / ConfigError when a value cannot be used.
 */
export function createKubeletContainerLogManager(config: ContainerLogsConfig, runtime: LogRuntime, clock: Clock, logger: Logger): ContainerLogManager {
  const maxSize = parseQuantity(config.containerLogMaxSize);
  if (!Number.isInteger(maxSize)) throw new Error(`failed to parse container log max size ${JSON.stringify(config.containerLogMaxSize)}: invalid max log size`);
  return createContainerLogManager({
    runtime,
    maxSize,
    maxFiles: config.containerLogMaxFiles,
    maxWorkers: config.containerLogMaxWorkers,
    monitorIntervalMs: durationMs(config.containerLogMonitorInterval),
    clock,
    logger,
  });
}

/**
 * Runs log rotation until the signal aborts (upstream starts it with the runtime-dependent modules,
 * once the runtime answers). Never rejects: a failure is logged and the kubelet goes on without rotation.
 */
export async function runContainerLogManager(manager: Pick<ContainerLogManager, 'run'>, signal: AbortSignal, logger: Logger): Promise<void> {
  try {
    await manager.run(signal);
  } catch (err) {
    logger.error('Container log manager stopped', { err: errorMessage(err) });
  }
}
