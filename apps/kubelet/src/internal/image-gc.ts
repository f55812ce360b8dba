import path from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { CriClient } from '@kubelet-ts/cri-client';
import type { ImageGC } from '@kubelet-ts/image-gc';
import { IMAGE_GC_PERIOD_MS, createImageGC } from '@kubelet-ts/image-gc';

/**
 * Test only, not a kubelet flag: a Go duration ("1s") replacing the 5 min image GC period, so that the
 * kubelet's integration test sees detections and collections within seconds. Unset on real nodes.
 */
export const IMAGE_GC_PERIOD_ENV = 'KUBELET_TS_TEST_IMAGE_GC_PERIOD';

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

/** The image GC period: upstream's 5 min, unless the test-only variable sets a valid positive duration. */
export function imageGCPeriodMs(env: NodeJS.ProcessEnv, logger: Logger): number {
  const raw = env[IMAGE_GC_PERIOD_ENV];
  if (raw === undefined || raw === '') return IMAGE_GC_PERIOD_MS;
  try {
    const ms = durationMs(raw);
    if (ms > 0) {
      logger.warn(`${IMAGE_GC_PERIOD_ENV} is set (test only): image GC runs every ${raw}`);
      return ms;
    }
  } catch (err) {
    logger.warn(`Ignoring ${IMAGE_GC_PERIOD_ENV}`, { value: raw, err: errorMessage(err) });
    return IMAGE_GC_PERIOD_MS;
  }
  logger.warn(`Ignoring ${IMAGE_GC_PERIOD_ENV}: not a positive duration`, { value: raw });
  return IMAGE_GC_PERIOD_MS;
}

/**
 * Runs image GC until the signal aborts, first at once (upstream StartGarbageCollection runs once the
 * runtime is up), then every period. Nothing runs when the runtime never became ready.
 */
export async function runImageGC(imageGc: Pick<ImageGC, 'run'>, runtimeReady: boolean, signal: AbortSignal, periodMs: number): Promise<void> {
  if (!runtimeReady) return;
  await imageGc.run(signal, { periodMs });
}
