import type { Clock, Logger } from '@kubelet-ts/common';
import { durationMs } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import type { PodLifecycle } from '@kubelet-ts/pod-lifecycle';
import { createFileSource, createHttpSource, createPodConfig } from '@kubelet-ts/pod-sources';
import type { PodConfigOptions, PodSource, StaticPodObjectReference } from '@kubelet-ts/pod-sources';
import type { Runnable } from './supervise.js';

/** The standalone sources the configuration asks for: the manifest directory and the manifest URL. */
export function staticPodSources(config: KubeletConfiguration, nodeName: string, clock: Clock, logger: Logger): PodSource[] {
  const sources: PodSource[] = [];
  if (config.staticPodPath !== undefined && config.staticPodPath !== '') {
    sources.push(
      createFileSource({ path: config.staticPodPath, nodeName, checkFrequencyMs: durationMs(config.fileCheckFrequency), clock, logger }),
    );
  }
  if (config.staticPodURL !== undefined && config.staticPodURL !== '') {
    sources.push(
      createHttpSource({
        url: config.staticPodURL,
        headers: config.staticPodURLHeader ?? {},
        nodeName,
        checkFrequencyMs: durationMs(config.httpCheckFrequency),
        clock,
        logger,
      }),
    );
  }
  return sources;
}

export interface PodSourcesOptions {
  sources: PodSource[];
  /** API object references static pods may make here (`staticPodObjectReferences`). */
  allowedObjectReferences: readonly StaticPodObjectReference[];
  lifecycle: Pick<PodLifecycle, 'handlePodUpdate' | 'setSourcesReady'>;
  /** Every pod that is not static, as a source delivered it (the pod startup latency tracker). */
  observePod?: PodConfigOptions['observePod'];
  clock: Clock;
  logger: Logger;
}

/**
 * The pod sources as a runnable (upstream PodConfig feeding syncLoop): the merged updates go to
 * the lifecycle, which learns that the sources are ready once each delivered its first snapshot
 * (orphans are only killed after that). Bad manifests are logged by the sources themselves, with
 * file, field and reason. Stops the sources when the signal aborts.
 */
export function podSourcesRunnable(options: PodSourcesOptions): Runnable {
  const { lifecycle } = options;
  return {
    async run(signal) {
      const podConfig = createPodConfig({
        sources: options.sources,
        allowedObjectReferences: options.allowedObjectReferences,
        ...(options.observePod !== undefined ? { observePod: options.observePod } : {}),
        clock: options.clock,
        logger: options.logger,
        signal,
      });
      podConfig.allSourcesSeen.then(
        () => lifecycle.setSourcesReady(),
        () => undefined,
      );
      try {
        for await (const update of podConfig.updates) lifecycle.handlePodUpdate(update);
      } finally {
        await podConfig.close();
      }
    },
  };
}
