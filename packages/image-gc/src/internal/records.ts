import { errorMessage } from '@kubelet-ts/common';
import type { ImageRecord } from '../types.js';
import type { ImageGCContext, ImageGCState } from './context.js';
import type { PersistedImageTimes } from './state-store.js';

/** Saves every record's first-detected and last-used times to the state file, if there is one; a failure is logged. */
export async function persistRecords(ctx: ImageGCContext, state: ImageGCState): Promise<void> {
  if (ctx.store === undefined) return;
  const times = new Map<string, PersistedImageTimes>();
  for (const r of state.records.values()) times.set(r.id, { firstDetectedMs: r.firstDetectedMs, lastUsedMs: r.lastUsedMs });
  try {
    await ctx.store.save(times);
  } catch (err) {
    ctx.logger.warn('Cannot save the image GC state', { path: ctx.stateFile, err: errorMessage(err) });
  }
}

/** Runs fn, then saves the records whatever it did. */
export async function persistAfter<T>(ctx: ImageGCContext, state: ImageGCState, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    await persistRecords(ctx, state);
  }
}

/** Unused, unpinned images least recently used first, ties broken by first detection (upstream imagesInEvictionOrder). */
export function imagesInEvictionOrder(state: ImageGCState): ImageRecord[] {
  return [...state.records.values()]
    .filter((r) => !r.inUse && !r.pinned)
    .sort((a, b) => a.lastUsedMs - b.lastUsedMs || a.firstDetectedMs - b.firstDetectedMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Copies of the records, least recently used first. */
export function imageRecordsSnapshot(state: ImageGCState): ImageRecord[] {
  return [...state.records.values()]
    .sort((a, b) => a.lastUsedMs - b.lastUsedMs || a.firstDetectedMs - b.firstDetectedMs)
    .map((r) => ({ ...r, repoTags: [...r.repoTags] }));
}
