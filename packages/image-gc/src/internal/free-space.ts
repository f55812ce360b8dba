import { errorMessage } from '@kubelet-ts/common';
import { ImageGCError } from '../errors.js';
import type { ImageGCResult, ImageRecord, RemovedImage } from '../types.js';
import type { ImageGCContext, ImageGCState } from './context.js';

/** One image removed by ID (CRI RemoveImage by ID removes every tag of it); its record goes. */
async function removeImage(
  ctx: ImageGCContext,
  state: ImageGCState,
  record: ImageRecord,
  reason: RemovedImage['reason'],
): Promise<RemovedImage> {
  ctx.logger.info('Removing image to free bytes', { imageID: record.id, size: record.sizeBytes, repoTags: record.repoTags, reason });
  await ctx.imageService.removeImage({ image: { image: record.id } });
  state.records.delete(record.id);
  ctx.collected.inc({ reason });
  return { id: record.id, repoTags: record.repoTags, sizeBytes: record.sizeBytes, reason };
}

/** The errors of a removal pass as one REMOVE_FAILED error. */
function removeFailed(message: string, errors: readonly unknown[]): ImageGCError {
  return new ImageGCError('REMOVE_FAILED', `${message}: ${errors.map(errorMessage).join('; ')}`, {
    cause: errors.length === 1 ? errors[0] : new AggregateError(errors),
  });
}

/**
 * Upstream freeSpace: removes candidates until `bytesToFree` is reached, skipping recently used and
 * too young images. What it removed is in `result` even when it rejects (REMOVE_FAILED).
 */
export async function freeSpace(
  ctx: ImageGCContext,
  state: ImageGCState,
  bytesToFree: number,
  freeTimeMs: number,
  candidates: readonly ImageRecord[],
  result: ImageGCResult,
): Promise<void> {
  const { logger, policy } = ctx;
  const errors: unknown[] = [];
  for (const image of candidates) {
    if (result.freedBytes >= bytesToFree) break;
    if (image.lastUsedMs >= freeTimeMs) {
      logger.debug('Image ID was used too recently, not eligible for garbage collection', { imageID: image.id });
      continue;
    }
    if (freeTimeMs - image.firstDetectedMs < policy.minAgeMs) {
      logger.debug("Image ID's age is less than the policy's minAge, not eligible for garbage collection", {
        imageID: image.id,
        ageMs: freeTimeMs - image.firstDetectedMs,
        minAgeMs: policy.minAgeMs,
      });
      continue;
    }
    try {
      result.removed.push(await removeImage(ctx, state, image, 'space'));
      result.freedBytes += image.sizeBytes;
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0)
    throw removeFailed(
      `wanted to free ${bytesToFree} bytes, but freed ${result.freedBytes} bytes space with errors in image deletion`,
      errors,
    );
}

/** Upstream freeOldImages: removes images unused for longer than maxAge; resolves with the candidates left. */
export async function freeOldImages(
  ctx: ImageGCContext,
  state: ImageGCState,
  freeTimeMs: number,
  candidates: ImageRecord[],
  result: ImageGCResult,
): Promise<ImageRecord[]> {
  const { policy } = ctx;
  if (policy.maxAgeMs === 0 || freeTimeMs - state.beganGcMs <= policy.maxAgeMs) return candidates;
  const remaining: ImageRecord[] = [];
  const errors: unknown[] = [];
  for (const image of candidates) {
    if (freeTimeMs - image.lastUsedMs <= policy.maxAgeMs) {
      remaining.push(image);
      continue;
    }
    try {
      const removed = await removeImage(ctx, state, image, 'age');
      result.removed.push(removed);
      result.freedBytes += removed.sizeBytes;
    } catch (err) {
      errors.push(err);
      remaining.push(image);
    }
  }
  if (errors.length > 0)
    throw removeFailed(`wanted to free images older than ${policy.maxAgeMs} ms, encountered errors in image deletion`, errors);
  return remaining;
}
