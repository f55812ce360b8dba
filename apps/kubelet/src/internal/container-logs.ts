import type { Clock, Logger } from '@kubelet-ts/common';
import { parseQuantity } from '@kubelet-ts/api';
import { durationMs } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { createContainerLogManager } from '@kubelet-ts/container-logs';
import type { ContainerLogManager, LogRuntime } from '@kubelet-ts/container-logs';

export type ContainerLogsConfig = Pick<
  KubeletConfiguration,
  'containerLogMaxSize' | 'containerLogMaxFiles' | 'containerLogMaxWorkers' | 'containerLogMonitorInterval'
>;

/**
 * The container log rotation manager from the kubelet configuration (upstream NewContainerLogManager):
 * containerLogMaxSize is a quantity in bytes (a negative one disables rotation), containerLogMaxFiles,
 * containerLogMaxWorkers and containerLogMonitorInterval as configured (validated by @kubelet-ts/config).
 * @throws ContainerLogsError / ConfigError when a value cannot be used.
 */
export function createKubeletContainerLogManager(options: {
  config: ContainerLogsConfig;
  runtime: LogRuntime;
  clock: Clock;
  logger: Logger;
}): ContainerLogManager {
  const { config, runtime, clock, logger } = options;
  const maxSize = parseQuantity(config.containerLogMaxSize);
  if (!Number.isInteger(maxSize))
    throw new Error(`failed to parse container log max size ${JSON.stringify(config.containerLogMaxSize)}: invalid max log size`);
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
