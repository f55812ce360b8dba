import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { containerdConfigFromInfo } from '@kubelet-ts/cri-client';
import type { Image, ImageService, RuntimeService } from '@kubelet-ts/cri-client';
import { ImageGCError } from './errors.js';
import { StateStore } from './internal/state-store.js';
import type { PersistedImageTimes } from './internal/state-store.js';
import { statfsBytes } from './statfs.js';
import { IMAGE_GC_PERIOD_MS, resolveImageGCPolicy } from './policy.js';
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

interface Detection {
  inUse: Set<string>;
  freeTimeMs: number;
}

/** Creates image garbage collection (upstream pkg/kubelet/images/image_gc_manager.go) over the CRI. */
export function createImageGC(options: ImageGCOptions): ImageGC {
  const policy = resolveImageGCPolicy(options.policy);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const statfs = options.statfs ?? statfsBytes;
  const store = options.stateFile === undefined ? undefined : new StateStore(options.stateFile, logger);
  const records = new Map<string, ImageRecord>();
  let restored: Map<string, PersistedImageTimes> | undefined;
  let loaded = store === undefined;
  let runtimeSandboxImage: string | undefined;
  // Upstream beganGC: maxAge removals wait until maxAge has passed since GC started.
  let beganGcMs = clock.now();
  // One detection or removal pass at a time (periodic GC and eviction may ask together).
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };

  const protectedRefs = async (): Promise<string[]> => {
    const refs = [...(options.pinnedImages ?? [])];
    if (options.sandboxImage !== undefined) {
      refs.push(options.sandboxImage);
    } else {
      try {
        const status = await options.runtimeService.status({ verbose: true });
        runtimeSandboxImage = containerdConfigFromInfo(status.info)?.sandboxImage ?? runtimeSandboxImage;
      } catch (err) {
        logger.debug('CRI Status failed; keeping the last known sandbox image', { err: errorMessage(err), sandboxImage: runtimeSandboxImage });
      }
      if (runtimeSandboxImage !== undefined) refs.push(runtimeSandboxImage);
    }
    return refs;
  };

  // Image IDs of the protected references (a reference may have been re-pulled under a new ID).
  const protectedIds = async (images: readonly Image[]): Promise<Set<string>> => {
    const ids = new Set<string>();
    for (const ref of await protectedRefs()) {
      const local = images.find((i) => i.id === ref || i.repoTags.includes(ref) || i.repoDigests.includes(ref));
      if (local !== undefined) {
        ids.add(local.id);
        continue;
      }
      try {
        const status = await options.imageService.imageStatus({ image: { image: ref } });
        if (status.image !== null && status.image.id !== '') ids.add(status.image.id);
      } catch (err) {
        logger.debug('Cannot resolve a protected image', { image: ref, err: errorMessage(err) });
      }
    }
    return ids;
  };

  const persist = async (): Promise<void> => {
    if (store === undefined) return;
    const times = new Map<string, PersistedImageTimes>();
    for (const r of records.values()) times.set(r.id, { firstDetectedMs: r.firstDetectedMs, lastUsedMs: r.lastUsedMs });
    try {
      await store.save(times);
    } catch (err) {
      logger.warn('Cannot save the image GC state', { path: options.stateFile, err: errorMessage(err) });
    }
  };

  const detect = async (): Promise<Detection> => {
    if (!loaded && store !== undefined) {
      restored = await store.load();
      loaded = true;
    }
    let images: Image[];
    const inUse = new Set<string>();
    try {
      const [imageList, containerList] = await Promise.all([options.imageService.listImages({}), options.runtimeService.listContainers({})]);
      images = imageList.images;
      // Every container the runtime has, in any state and of any pod (upstream GetPods(all=true)).
      for (const c of containerList.containers) {
        if (c.imageRef !== '') inUse.add(c.imageRef);
        if (c.imageId !== '') inUse.add(c.imageId);
      }
    } catch (err) {
      throw ImageGCError.from(err, 'RUNTIME', 'Failed to list images and containers');
    }
    const pinnedIds = await protectedIds(images);
    // "Always consider the container runtime pod sandbox image in use" (upstream before the CRI pinned field).
    for (const id of pinnedIds) inUse.add(id);
    const now = clock.now();
    const present = new Set<string>();
    for (const image of images) {
      present.add(image.id);
      let record = records.get(image.id);
      if (record === undefined) {
        const saved = restored?.get(image.id);
        record = {
          id: image.id,
          repoTags: [],
          sizeBytes: 0,
          firstDetectedMs: saved?.firstDetectedMs ?? now,
          lastUsedMs: saved?.lastUsedMs ?? 0,
          pinned: false,
          inUse: false,
        };
        records.set(image.id, record);
      }
      record.inUse = isImageUsed(image, inUse);
      if (record.inUse) record.lastUsedMs = now;
      record.repoTags = [...image.repoTags];
      record.sizeBytes = Number(image.size) || 0;
      record.pinned = image.pinned || pinnedIds.has(image.id);
    }
    for (const id of [...records.keys()]) if (!present.has(id)) records.delete(id);
    // The saved times served their purpose: images gone since are not kept.
    restored = undefined;
    await persist();
    return { inUse, freeTimeMs: now };
  };

  /** Unused, unpinned images least recently used first, ties broken by first detection (upstream imagesInEvictionOrder). */
  const evictionOrder = (): ImageRecord[] =>
    [...records.values()]
      .filter((r) => !r.inUse && !r.pinned)
      .sort((a, b) => a.lastUsedMs - b.lastUsedMs || a.firstDetectedMs - b.firstDetectedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  const removeImage = async (record: ImageRecord, reason: RemovedImage['reason']): Promise<RemovedImage> => {
    logger.info('Removing image to free bytes', { imageID: record.id, size: record.sizeBytes, repoTags: record.repoTags, reason });
    // CRI RemoveImage by ID removes every tag of the image.
    await options.imageService.removeImage({ image: { image: record.id } });
    records.delete(record.id);
    return { id: record.id, repoTags: record.repoTags, sizeBytes: record.sizeBytes, reason };
  };

  /** Upstream freeSpace: removes candidates until `bytesToFree` is reached, skipping recently used and too young images. */
  const freeSpace = async (bytesToFree: number, freeTimeMs: number, candidates: ImageRecord[], result: ImageGCResult): Promise<void> => {
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
        result.removed.push(await removeImage(image, 'space'));
        result.freedBytes += image.sizeBytes;
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) {
      throw new ImageGCError(
        'REMOVE_FAILED',
        `wanted to free ${bytesToFree} bytes, but freed ${result.freedBytes} bytes space with errors in image deletion: ${errors.map(errorMessage).join('; ')}`,
        { cause: errors.length === 1 ? errors[0] : new AggregateError(errors) },
      );
    }
  };

  /** Upstream freeOldImages: removes images unused for longer than maxAge; returns the candidates left. */
  const freeOldImages = async (freeTimeMs: number, candidates: ImageRecord[], result: ImageGCResult): Promise<ImageRecord[]> => {
    if (policy.maxAgeMs === 0 || freeTimeMs - beganGcMs <= policy.maxAgeMs) return candidates;
    const remaining: ImageRecord[] = [];
    const errors: unknown[] = [];
    for (const image of candidates) {
      if (freeTimeMs - image.lastUsedMs <= policy.maxAgeMs) {
        remaining.push(image);
        continue;
      }
      try {
        const removed = await removeImage(image, 'age');
        result.removed.push(removed);
        result.freedBytes += removed.sizeBytes;
      } catch (err) {
        errors.push(err);
        remaining.push(image);
      }
    }
    if (errors.length > 0) {
      throw new ImageGCError('REMOVE_FAILED', `wanted to free images older than ${policy.maxAgeMs} ms, encountered errors in image deletion: ${errors.map(errorMessage).join('; ')}`, {
        cause: errors.length === 1 ? errors[0] : new AggregateError(errors),
      });
    }
    return remaining;
  };

  const imageFsCapacity = async (): Promise<FsCapacity & { mountpoint: string }> => {
    let mountpoint: string | undefined;
    try {
      const info = await options.imageService.imageFsInfo({});
      mountpoint = info.imageFilesystems.find((fs) => (fs.fsId?.mountpoint ?? '') !== '')?.fsId?.mountpoint;
    } catch (err) {
      throw ImageGCError.from(err, 'IMAGE_FS', 'Failed to get the image filesystem from CRI ImageFsInfo');
    }
    if (mountpoint === undefined) throw new ImageGCError('IMAGE_FS', 'CRI ImageFsInfo reported no image filesystem mountpoint');
    try {
      return { ...(await statfs(mountpoint)), mountpoint };
    } catch (err) {
      throw ImageGCError.from(err, 'IMAGE_FS', `Failed to statfs the image filesystem at ${mountpoint}`);
    }
  };

  const persistAfter = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } finally {
      await persist();
    }
  };

  const garbageCollect = (): Promise<ImageGCResult> =>
    exclusive(async () => {
      const { freeTimeMs } = await detect();
      const result: ImageGCResult = { bytesToFree: 0, freedBytes: 0, removed: [] };
      return persistAfter(async () => {
        const candidates = await freeOldImages(freeTimeMs, evictionOrder(), result);
        const fs = await imageFsCapacity();
        let available = fs.availableBytes;
        if (available > fs.capacityBytes) {
          logger.info('Availability is larger than capacity', { available, capacity: fs.capacityBytes });
          available = fs.capacityBytes;
        }
        if (!(fs.capacityBytes > 0)) throw new ImageGCError('IMAGE_FS', `invalid capacity ${fs.capacityBytes} on image filesystem ${fs.mountpoint}`);
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
          await freeSpace(bytesToFree, freeTimeMs, candidates, spaceResult);
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
      });
    });

  const deleteUnusedImages = (): Promise<void> =>
    exclusive(async () => {
      logger.info('Attempting to delete unused images');
      const { freeTimeMs } = await detect();
      const result: ImageGCResult = { bytesToFree: Number.POSITIVE_INFINITY, freedBytes: 0, removed: [] };
      await persistAfter(async () => {
        try {
          await freeSpace(Number.POSITIVE_INFINITY, freeTimeMs, evictionOrder(), result);
        } finally {
          logger.info('Deleted unused images', { freedBytes: result.freedBytes, removed: result.removed.length });
        }
      });
    });

  const detectImages = (): Promise<void> =>
    exclusive(async () => {
      await detect();
    });

  const imageRecords = (): ImageRecord[] =>
    [...records.values()]
      .sort((a, b) => a.lastUsedMs - b.lastUsedMs || a.firstDetectedMs - b.firstDetectedMs)
      .map((r) => ({ ...r, repoTags: [...r.repoTags] }));

  const run = async (signal: AbortSignal, runOptions: { periodMs?: number } = {}): Promise<void> => {
    const periodMs = runOptions.periodMs ?? IMAGE_GC_PERIOD_MS;
    const gcEnabled = policy.highThresholdPercent < 100;
    if (!gcEnabled) logger.info('ImageGCHighThresholdPercent is set 100, Disable image GC');
    beganGcMs = clock.now();
    let failedBefore = false;
    while (!signal.aborted) {
      try {
        if (gcEnabled) {
          const result = await garbageCollect();
          logger.debug('Image garbage collection succeeded', { freedBytes: result.freedBytes, removed: result.removed.length });
        } else {
          await detectImages();
        }
        failedBefore = false;
      } catch (err) {
        if (failedBefore) logger.error('Image garbage collection failed multiple times in a row', { err: errorMessage(err) });
        else logger.warn('Image garbage collection failed once. Stats initialization may not have completed yet', { err: errorMessage(err) });
        failedBefore = true;
      }
      await clock.sleep(periodMs, signal).catch(() => undefined);
    }
  };

  return { garbageCollect, deleteUnusedImages, detectImages, imageRecords, run };
}

/** Whether any container uses the image: by ID, or by a tag or digest for runtimes that report a reference. */
function isImageUsed(image: Image, inUse: ReadonlySet<string>): boolean {
  if (inUse.has(image.id)) return true;
  return image.repoDigests.some((d) => inUse.has(d)) || image.repoTags.some((t) => inUse.has(t));
}
