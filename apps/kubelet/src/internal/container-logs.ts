import type { Clock, Logger } from '@kubelet-ts/common';
import { parseQuantity } from '@kubelet-ts/api';
import { durationMs } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import type { Pod } from '@kubelet-ts/api';
import {
  ContainerLogsError,
  createContainerLogManager,
  createCriContainerLocator,
  podLogOptionsFromQuery,
  streamContainerLogs,
} from '@kubelet-ts/container-logs';
import type { ContainerLogManager, LogRuntime } from '@kubelet-ts/container-logs';
import type { RuntimeService } from '@kubelet-ts/cri-client';
import type { ContainerLogsSource } from '@kubelet-ts/server';

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

/**
 * The `/containerLogs` route's source (upstream GetKubeletContainerLogs): the kubelet's pods by
 * name, the container found through its CRI labels, the log read from its file. A query that does
 * not decode is a 400, options that do not validate a 422, as upstream answers them.
 */
export function containerLogsSource(options: {
  getPods: () => readonly Pod[];
  runtime: Pick<RuntimeService, 'listContainers' | 'containerStatus'>;
  clock: Clock;
  logger: Logger;
}): ContainerLogsSource {
  const locate = createCriContainerLocator(options.runtime);
  return {
    getPodByName: (namespace, name) => options.getPods().find((p) => p.metadata.namespace === namespace && p.metadata.name === name),
    async streamLogs({ pod, container, query, signal }) {
      let logOptions;
      try {
        logOptions = podLogOptionsFromQuery(query);
      } catch (err) {
        throw Object.assign(err as Error, { status: ContainerLogsError.is(err, 'INVALID_OPTIONS') ? 422 : 400 });
      }
      return streamContainerLogs({
        namespace: pod.metadata.namespace,
        pod: pod.metadata.name,
        container,
        options: logOptions,
        locate,
        runtime: options.runtime,
        signal,
        clock: options.clock,
        logger: options.logger,
      });
    },
  };
}
