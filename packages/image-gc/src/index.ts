export { ImageGCError } from './errors.js';
export type { ImageGCErrorCode } from './errors.js';
export { DEFAULT_IMAGE_GC_POLICY, IMAGE_GC_PERIOD_MS, resolveImageGCPolicy } from './policy.js';
export type { ImageGCPolicy } from './policy.js';
export { createImageGC } from './image-gc.js';
export type {
  FsCapacity,
  ImageGC,
  ImageGCImageService,
  ImageGCOptions,
  ImageGCResult,
  ImageGCRuntimeService,
  ImageRecord,
  RemovedImage,
  StatFsFn,
} from './image-gc.js';
export { statfsBytes } from './statfs.js';
