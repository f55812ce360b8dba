import { errorMessage } from '@kubelet-ts/common';
import { IMAGE_GC_PERIOD_MS } from '../policy.js';
import type { ImageGCResult } from '../types.js';
import type { ImageGCContext, ImageGCState } from './context.js';

/** The passes the loop runs, each one at a time with the others. */
export interface GCPasses {
  garbageCollect(): Promise<ImageGCResult>;
  detectImages(): Promise<void>;
}

/**
 * Upstream realImageGCManager.Start and the kubelet's StartGarbageCollection loop: detection and GC
 * now and every period until the signal aborts (detection only when GC is disabled); failures are logged.
 */
export async function runGCLoop(
  ctx: ImageGCContext,
  state: ImageGCState,
  passes: GCPasses,
  signal: AbortSignal,
  periodMs = IMAGE_GC_PERIOD_MS,
): Promise<void> {
  const { clock, logger } = ctx;
  const gcEnabled = ctx.policy.highThresholdPercent < 100;
  if (!gcEnabled) logger.info('ImageGCHighThresholdPercent is set 100, Disable image GC');
  state.beganGcMs = clock.now();
  let failedBefore = false;
  while (!signal.aborted) {
    try {
      if (gcEnabled) {
        const result = await passes.garbageCollect();
        logger.debug('Image garbage collection succeeded', { freedBytes: result.freedBytes, removed: result.removed.length });
      } else {
        await passes.detectImages();
      }
      failedBefore = false;
    } catch (err) {
      if (failedBefore) logger.error('Image garbage collection failed multiple times in a row', { err: errorMessage(err) });
      else logger.warn('Image garbage collection failed once. Stats initialization may not have completed yet', { err: errorMessage(err) });
      failedBefore = true;
    }
    await clock.sleep(periodMs, signal).catch(() => undefined);
  }
}
