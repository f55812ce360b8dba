import path from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { ImageGC } from '@kubelet-ts/image-gc';
import { IMAGE_GC_PERIOD_MS, createImageGC } from '@kubelet-ts/image-gc';
import { TEST_KNOBS, testKnobMs } from './test-knobs.js';

/** Where last-used times are kept across restarts. */
export function imageGCStateFile(rootDir: string): string {
  return path.join(rootDir, 'image-gc', 'state.json');
}

export interface KubeletImageGCOptions {
  config: Pick<KubeletConfiguration, 'imageGCHighThresholdPercent' | 'imageGCLowThresholdPercent' | 'imageMinimumGCAge' | 'imageMaximumGCAge'>;
  rootDir: string;
  cri: Pick<CriClient, 'image' | 'runtime'>;
  /** --pod-infra-container-image: upstream keeps it from image GC; the runtime's own sandbox image is kept too. */
  podInfraContainerImage?: string | undefined;
  clock: Clock;
  logger: Logger;
}

/**
 * The kubelet's image GC: KubeletConfiguration thresholds and ages, the CRI image and runtime services,
 * the sandbox image from the runtime's status, state in `<root-dir>/image-gc/state.json`.
 */
/** The image GC period: upstream's 5 min, or the test-only knob. */
export function imageGCPeriodMs(env: NodeJS.ProcessEnv, logger: Logger): number {
  return testKnobMs(env, TEST_KNOBS.imageGCPeriod, IMAGE_GC_PERIOD_MS, logger);
}

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
  });
}


/**
 * Runs image GC until the signal aborts, first at once (upstream StartGarbageCollection runs once the
 * runtime is up), then every period. Nothing runs when the runtime never became ready.
 */
export async function runImageGC(imageGc: Pick<ImageGC, 'run'>, runtimeReady: boolean, signal: AbortSignal, periodMs: number): Promise<void> {
  if (!runtimeReady) return;
  await imageGc.run(signal, { periodMs });
}
