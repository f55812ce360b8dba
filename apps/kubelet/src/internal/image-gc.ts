import path from 'node:path';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { ImageGC } from '@kubelet-ts/image-gc';
import { IMAGE_GC_PERIOD_MS, createImageGC } from '@kubelet-ts/image-gc';
import type { Runnable } from './supervise.js';

/** Where last-used times are kept across restarts. */
export function imageGCStateFile(rootDir: string): string {
  return path.join(rootDir, 'image-gc', 'state.json');
}

export interface KubeletImageGCOptions {
  config: Pick<
    KubeletConfiguration,
    'imageGCHighThresholdPercent' | 'imageGCLowThresholdPercent' | 'imageMinimumGCAge' | 'imageMaximumGCAge'
  >;
  rootDir: string;
  cri: Pick<CriClient, 'image' | 'runtime'>;
  /** --pod-infra-container-image: upstream keeps it from image GC; the runtime's own sandbox image is kept too. */
  podInfraContainerImage?: string | undefined;
  clock: Clock;
  logger: Logger;
  /** kubelet_image_garbage_collected_total. */
  metrics?: Metrics;
}

/** The image GC period: `imageGCPeriod` (kubelet-ts), else upstream's 5 min. */
export function imageGCPeriodMs(config: Pick<KubeletConfiguration, 'imageGCPeriod'>): number {
  return config.imageGCPeriod !== undefined ? durationMs(config.imageGCPeriod) : IMAGE_GC_PERIOD_MS;
}

/**
 * The kubelet's image GC: KubeletConfiguration thresholds and ages, the CRI image and runtime services,
 * the sandbox image from the runtime's status, state in `<root-dir>/image-gc/state.json`.
 */
export function createKubeletImageGC(options: KubeletImageGCOptions): ImageGC {
  const { config } = options;
  return createImageGC({
    imageService: options.cri.image,
    runtimeService: options.cri.runtime,
    policy: {
      highThresholdPercent: config.imageGCHighThresholdPercent,
      lowThresholdPercent: config.imageGCLowThresholdPercent,
      minAgeMs: durationMs(config.imageMinimumGCAge),
      maxAgeMs: durationMs(config.imageMaximumGCAge),
    },
    stateFile: imageGCStateFile(options.rootDir),
    ...(options.podInfraContainerImage ? { pinnedImages: [options.podInfraContainerImage] } : {}),
    clock: options.clock,
    logger: options.logger,
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
  });
}

/**
 * Image GC as a runnable: first at once (upstream StartGarbageCollection runs once the runtime is
 * up), then every period, until the signal aborts.
 */
export function imageGCRunnable(imageGc: Pick<ImageGC, 'run'>, periodMs: number): Runnable {
  return { run: (signal) => imageGc.run(signal, { periodMs }) };
}
