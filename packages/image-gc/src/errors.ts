import { defineError } from '@kubelet-ts/common';

export type ImageGCErrorCode =
  /** The thresholds or ages given to createImageGC are out of range or inconsistent. */
  | 'INVALID_POLICY'
  /** Listing images or containers through the CRI failed: nothing was removed. */
  | 'RUNTIME'
  /** The image filesystem's capacity could not be read, or it reported a capacity of 0. */
  | 'IMAGE_FS'
  /** Over the high threshold, not enough unused images could be removed to reach the low threshold (upstream FreeDiskSpaceFailed). */
  | 'FREE_DISK_SPACE_FAILED'
  /** One or more CRI RemoveImage calls failed; the others went on. */
  | 'REMOVE_FAILED';

/** The one error class of @kubelet-ts/image-gc. */
export class ImageGCError extends defineError<ImageGCErrorCode>('ImageGCError', { defaultCode: 'RUNTIME' }) {}
