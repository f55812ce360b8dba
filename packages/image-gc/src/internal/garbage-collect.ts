import { ImageGCError } from '../errors.js';
import type { ImageGCResult, ImageRecord } from '../types.js';
import type { ImageGCContext, ImageGCState } from './context.js';
import { detectImages } from './detect-images.js';
import { freeOldImages, freeSpace } from './free-space.js';
import { imageFsCapacity } from './image-fs.js';
import { imagesInEvictionOrder, persistAfter } from './records.js';

/** Frees space down to the low threshold when usage is at or above the high one (the second half of upstream GarbageCollect). */
async function freeToLowThreshold(
  ctx: ImageGCContext,
  state: ImageGCState,
  freeTimeMs: number,
  candidates: readonly ImageRecord[],
  result: ImageGCResult,
): Promise<ImageGCResult> {
  const { logger, policy } = ctx;
  const fs = await imageFsCapacity(ctx);
  let available = fs.availableBytes;
  if (available > fs.capacityBytes) {
    logger.info('Availability is larger than capacity', { available, capacity: fs.capacityBytes });
    available = fs.capacityBytes;
  }
  if (!(fs.capacityBytes > 0))
    throw new ImageGCError('IMAGE_FS', `invalid capacity ${fs.capacityBytes} on image filesystem ${fs.mountpoint}`);
  // Integer arithmetic as upstream (Go int64 division truncates).
  const usagePercent = 100 - Math.floor((available * 100) / fs.capacityBytes);
  result.usagePercent = usagePercent;
  if (usagePercent < policy.highThresholdPercent) return result;
  const bytesToFree = Math.floor((fs.capacityBytes * (100 - policy.lowThresholdPercent)) / 100) - available;
  result.bytesToFree = bytesToFree;
  logger.info('Disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold', {
    usage: usagePercent,
    highThreshold: policy.highThresholdPercent,
    amountToFree: bytesToFree,
    lowThreshold: policy.lowThresholdPercent,
  });
  const spaceFreedBefore = result.freedBytes;
  const spaceResult: ImageGCResult = { bytesToFree, freedBytes: 0, removed: [] };
  try {
    await freeSpace(ctx, state, bytesToFree, freeTimeMs, candidates, spaceResult);
  } finally {
    result.removed.push(...spaceResult.removed);
    result.freedBytes = spaceFreedBefore + spaceResult.freedBytes;
  }
  if (spaceResult.freedBytes < bytesToFree) {
    throw new ImageGCError(
      'FREE_DISK_SPACE_FAILED',
      `Failed to garbage collect required amount of images. Attempted to free ${bytesToFree} bytes, but only found ${spaceResult.freedBytes} bytes eligible to free.`,
    );
  }
  return result;
}

/** Upstream GarbageCollect (see ImageGC.garbageCollect); the records are saved whatever happened. */
export async function garbageCollect(ctx: ImageGCContext, state: ImageGCState): Promise<ImageGCResult> {
  const { freeTimeMs } = await detectImages(ctx, state);
  const result: ImageGCResult = { bytesToFree: 0, freedBytes: 0, removed: [] };
  return persistAfter(ctx, state, async () => {
    const candidates = await freeOldImages(ctx, state, freeTimeMs, imagesInEvictionOrder(state), result);
    return freeToLowThreshold(ctx, state, freeTimeMs, candidates, result);
  });
}

/** Upstream DeleteUnusedImages (see ImageGC.deleteUnusedImages). */
export async function deleteUnusedImages(ctx: ImageGCContext, state: ImageGCState): Promise<void> {
  const { logger } = ctx;
  logger.info('Attempting to delete unused images');
  const { freeTimeMs } = await detectImages(ctx, state);
  const result: ImageGCResult = { bytesToFree: Number.POSITIVE_INFINITY, freedBytes: 0, removed: [] };
  await persistAfter(ctx, state, async () => {
    try {
      await freeSpace(ctx, state, Number.POSITIVE_INFINITY, freeTimeMs, imagesInEvictionOrder(state), result);
    } finally {
      logger.info('Deleted unused images', { freedBytes: result.freedBytes, removed: result.removed.length });
    }
  });
}
