import type { Clock, Logger } from '@kubelet-ts/common';
import { durationMs } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { createFileSource, createHttpSource } from '@kubelet-ts/pod-sources';
import type { PodSource } from '@kubelet-ts/pod-sources';

/** The standalone sources the configuration asks for: the manifest directory and the manifest URL. */
export function staticPodSources(config: KubeletConfiguration, nodeName: string, clock: Clock, logger: Logger): PodSource[] {
  const sources: PodSource[] = [];
  if (config.staticPodPath !== undefined && config.staticPodPath !== '') {
    sources.push(createFileSource({ path: config.staticPodPath, nodeName, checkFrequencyMs: durationMs(config.fileCheckFrequency), clock, logger }));
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
