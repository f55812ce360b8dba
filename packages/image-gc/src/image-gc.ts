import { createImageGCContext, createImageGCState } from './internal/context.js';
import { detectImages } from './internal/detect-images.js';
import { deleteUnusedImages, garbageCollect } from './internal/garbage-collect.js';
import { runGCLoop } from './internal/gc-loop.js';
import { imageRecordsSnapshot } from './internal/records.js';
import type { ImageGC, ImageGCOptions, ImageGCResult } from './types.js';

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
} from './types.js';

/** Creates image garbage collection (upstream pkg/kubelet/images/image_gc_manager.go) over the CRI. */
export function createImageGC(options: ImageGCOptions): ImageGC {
  const ctx = createImageGCContext(options);
  const state = createImageGCState(ctx);
  // One detection or removal pass at a time (periodic GC and eviction may ask together).
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  const passes = {
    garbageCollect: (): Promise<ImageGCResult> => exclusive(() => garbageCollect(ctx, state)),
    detectImages: (): Promise<void> =>
      exclusive(async () => {
        await detectImages(ctx, state);
      }),
  };
  return {
    ...passes,
    deleteUnusedImages: () => exclusive(() => deleteUnusedImages(ctx, state)),
    imageRecords: () => imageRecordsSnapshot(state),
    run: (signal, runOptions = {}) => runGCLoop(ctx, state, passes, signal, runOptions.periodMs),
  };
}
