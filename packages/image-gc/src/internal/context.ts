import type { Clock, Counter, Logger } from '@kubelet-ts/common';
import { noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import { resolveImageGCPolicy } from '../policy.js';
import type { ImageGCPolicy } from '../policy.js';
import { statfsBytes } from '../statfs.js';
import type { ImageGCImageService, ImageGCOptions, ImageGCRuntimeService, ImageRecord, StatFsFn } from '../types.js';
import { StateStore } from './state-store.js';
import type { PersistedImageTimes } from './state-store.js';

/** What every piece of image GC works with (upstream: realImageGCManager's fixed fields), built once from the options. */
export interface ImageGCContext {
  readonly imageService: ImageGCImageService;
  readonly runtimeService: ImageGCRuntimeService;
  readonly policy: ImageGCPolicy;
  readonly statfs: StatFsFn;
  /** Undefined: the times live in memory only. */
  readonly store: StateStore | undefined;
  readonly stateFile: string | undefined;
  /** Set: the sandbox image is never read from the runtime. */
  readonly sandboxImage: string | undefined;
  readonly pinnedImages: readonly string[];
  readonly clock: Clock;
  readonly logger: Logger;
  /** Upstream kubelet_image_garbage_collected_total{reason}. */
  readonly collected: Counter<'reason'>;
}

/** What image GC learns and changes as it runs (upstream imageRecords, beganGC and the sandbox image). */
export interface ImageGCState {
  /** By image ID, as of the last detection (removals delete theirs). */
  readonly records: Map<string, ImageRecord>;
  /** The state file's times, until the first detection used them. */
  restored: Map<string, PersistedImageTimes> | undefined;
  /** The state file was read (or there is none). */
  loaded: boolean;
  /** The runtime's sandbox image as last read from its Status. */
  runtimeSandboxImage: string | undefined;
  /** Upstream beganGC: maxAge removals wait until maxAge has passed since GC started. */
  beganGcMs: number;
}

export function createImageGCContext(options: ImageGCOptions): ImageGCContext {
  const logger = options.logger ?? noopLogger;
  return {
    imageService: options.imageService,
    runtimeService: options.runtimeService,
    policy: resolveImageGCPolicy(options.policy),
    statfs: options.statfs ?? statfsBytes,
    store: options.stateFile === undefined ? undefined : new StateStore(options.stateFile, logger),
    stateFile: options.stateFile,
    sandboxImage: options.sandboxImage,
    pinnedImages: options.pinnedImages ?? [],
    clock: options.clock ?? systemClock,
    logger,
    collected: (options.metrics ?? noopMetrics).counter<'reason'>({
      name: 'kubelet_image_garbage_collected_total',
      help: 'Total number of images garbage collected by the kubelet, whether through disk usage or image age.',
      labelNames: ['reason'],
    }),
  };
}

export function createImageGCState(ctx: ImageGCContext): ImageGCState {
  return {
    records: new Map(),
    restored: undefined,
    loaded: ctx.store === undefined,
    runtimeSandboxImage: undefined,
    beganGcMs: ctx.clock.now(),
  };
}
