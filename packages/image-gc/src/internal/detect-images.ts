import type { Image } from '@kubelet-ts/cri-client';
import { ImageGCError } from '../errors.js';
import type { ImageRecord } from '../types.js';
import type { ImageGCContext, ImageGCState } from './context.js';
import { protectedImageIds } from './protected-images.js';
import { persistRecords } from './records.js';

/** What one detection saw. */
export interface Detection {
  /** Image IDs and references some container uses (protected images included). */
  inUse: Set<string>;
  /** The detection's time: images used at or after it are not removed for space. */
  freeTimeMs: number;
}

/** Whether any container uses the image: by ID, or by a tag or digest for runtimes that report a reference. */
function isImageUsed(image: Image, inUse: ReadonlySet<string>): boolean {
  if (inUse.has(image.id)) return true;
  return image.repoDigests.some((d) => inUse.has(d)) || image.repoTags.some((t) => inUse.has(t));
}

/** Every image and every container the runtime has; a failure is a RUNTIME error. */
async function listImagesAndUse(ctx: ImageGCContext): Promise<{ images: Image[]; inUse: Set<string> }> {
  const inUse = new Set<string>();
  try {
    const [imageList, containerList] = await Promise.all([ctx.imageService.listImages({}), ctx.runtimeService.listContainers({})]);
    // Every container the runtime has, in any state and of any pod (upstream GetPods(all=true)).
    for (const c of containerList.containers) {
      if (c.imageRef !== '') inUse.add(c.imageRef);
      if (c.imageId !== '') inUse.add(c.imageId);
    }
    return { images: imageList.images, inUse };
  } catch (err) {
    throw ImageGCError.from(err, 'RUNTIME', 'Failed to list images and containers');
  }
}

/** The image's record, made on first sight with the state file's times when it has them. */
function recordFor(state: ImageGCState, image: Image, now: number): ImageRecord {
  let record = state.records.get(image.id);
  if (record === undefined) {
    const saved = state.restored?.get(image.id);
    record = {
      id: image.id,
      repoTags: [],
      sizeBytes: 0,
      firstDetectedMs: saved?.firstDetectedMs ?? now,
      lastUsedMs: saved?.lastUsedMs ?? 0,
      pinned: false,
      inUse: false,
    };
    state.records.set(image.id, record);
  }
  return record;
}

/** Upstream detectImages: lists images and containers, records first-detected and last-used times, saves them. */
export async function detectImages(ctx: ImageGCContext, state: ImageGCState): Promise<Detection> {
  if (!state.loaded && ctx.store !== undefined) {
    state.restored = await ctx.store.load();
    state.loaded = true;
  }
  const { images, inUse } = await listImagesAndUse(ctx);
  const pinnedIds = await protectedImageIds(ctx, state, images);
  // "Always consider the container runtime pod sandbox image in use" (upstream before the CRI pinned field).
  for (const id of pinnedIds) inUse.add(id);
  const now = ctx.clock.now();
  const present = new Set<string>();
  for (const image of images) {
    present.add(image.id);
    const record = recordFor(state, image, now);
    record.inUse = isImageUsed(image, inUse);
    if (record.inUse) record.lastUsedMs = now;
    record.repoTags = [...image.repoTags];
    record.sizeBytes = Number(image.size) || 0;
    record.pinned = image.pinned || pinnedIds.has(image.id);
  }
  for (const id of [...state.records.keys()]) if (!present.has(id)) state.records.delete(id);
  // The saved times served their purpose: images gone since are not kept.
  state.restored = undefined;
  await persistRecords(ctx, state);
  return { inUse, freeTimeMs: now };
}
