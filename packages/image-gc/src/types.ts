import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import type { ImageGCPolicy } from './policy.js';

/** The CRI ImageService calls image GC makes (structurally cri-client's ImageService). */
export type ImageGCImageService = Pick<ImageService, 'listImages' | 'imageStatus' | 'removeImage' | 'imageFsInfo'>;
/** The CRI RuntimeService calls image GC makes: every container's image, and the runtime's sandbox image. */
export type ImageGCRuntimeService = Pick<RuntimeService, 'listContainers' | 'status'>;

/** Capacity and free space of a filesystem. */
export interface FsCapacity {
  capacityBytes: number;
  availableBytes: number;
}

/** statfs of the filesystem holding a path. */
export type StatFsFn = (path: string) => Promise<FsCapacity>;

export interface ImageGCOptions {
  imageService: ImageGCImageService;
  runtimeService: ImageGCRuntimeService;
  /** Thresholds and ages; unset fields take the kubelet defaults (85, 80, 2 min, off). */
  policy?: Partial<ImageGCPolicy>;
  /**
   * Where first-detected and last-used times are kept across restarts (JSON, written atomically);
   * the kubelet uses `<root-dir>/image-gc/state.json`. Without it the times live in memory only (as upstream).
   */
  stateFile?: string;
  /**
   * The sandbox (pause) image, never removed. When unset it is read from the runtime's verbose Status
   * (containerd: `config.sandboxImage`) at every detection.
   */
  sandboxImage?: string;
  /** More references or image IDs never removed, besides images the runtime reports `pinned`. */
  pinnedImages?: readonly string[];
  /** statfs of the image filesystem's mountpoint (from CRI ImageFsInfo); default: Node's fs.statfs. */
  statfs?: StatFsFn;
  clock?: Clock;
  logger?: Logger;
  /** Where `kubelet_image_garbage_collected_total{reason}` (`age`, `space`) is counted. Default: nowhere. */
  metrics?: Metrics;
}

/** What image GC knows about one image (upstream imageRecord). */
export interface ImageRecord {
  id: string;
  repoTags: string[];
  sizeBytes: number;
  /** When this kubelet (or an earlier run, through the state file) first saw the image; ms since the epoch. */
  firstDetectedMs: number;
  /** When a container was last seen using it; 0 = never. */
  lastUsedMs: number;
  /** Pinned by the runtime, the sandbox image, or listed in `pinnedImages`: never removed. */
  pinned: boolean;
  /** A container (any state) uses it at the last detection. */
  inUse: boolean;
}

export interface RemovedImage {
  id: string;
  repoTags: string[];
  sizeBytes: number;
  /** `age`: unused longer than maxAge; `space`: freed to get under the thresholds (upstream metric reasons). */
  reason: 'age' | 'space';
}

export interface ImageGCResult {
  /** Image filesystem usage when GC looked (garbageCollect only). */
  usagePercent?: number;
  /** What GC tried to free: down to the low threshold; 0 under the high threshold. */
  bytesToFree: number;
  freedBytes: number;
  /** In the order they were removed: least recently used first. */
  removed: RemovedImage[];
}

/** Upstream ImageGCManager. Every method may be passed around unbound. */
export interface ImageGC {
  /**
   * Upstream GarbageCollect: removes images unused for longer than maxAge, then, when the image
   * filesystem is at or above the high threshold, unused images least recently used first until it
   * is down to the low threshold. Rejects with FREE_DISK_SPACE_FAILED when not enough could be freed.
   */
  garbageCollect(): Promise<ImageGCResult>;
  /**
   * Upstream DeleteUnusedImages, the eviction manager's image reclaim: removes every unused image past
   * minAge, least recently used first. Resolves with nothing (as upstream; it fits `() => Promise<void>`);
   * what was removed is logged. Rejects with REMOVE_FAILED when a removal failed (the others went on).
   */
  deleteUnusedImages(): Promise<void>;
  /** Upstream detectImages: lists images and containers, records first-detected and last-used times, saves them. */
  detectImages(): Promise<void>;
  /** The records of the last detection, least recently used first. */
  imageRecords(): ImageRecord[];
  /**
   * Runs detection and GC now and then every `periodMs` (default 5 min) until the signal aborts;
   * never rejects (failures are logged). With highThresholdPercent 100 only detection runs (upstream: GC disabled).
   */
  run(signal: AbortSignal, options?: { periodMs?: number }): Promise<void>;
}
