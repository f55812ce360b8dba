import type { ImageGC, ImageGCResult, ImageRecord } from '../image-gc.js';

export type FakeImageGCMethod = 'garbageCollect' | 'deleteUnusedImages' | 'detectImages' | 'run';

/** One recorded call. */
export interface FakeImageGCCall {
  method: FakeImageGCMethod;
}

/**
 * An ImageGC that records its calls and answers with scripted results or errors, for the unit tests
 * of what uses image GC (the eviction manager's image reclaim, the kubelet wiring). Methods may be
 * passed around unbound, as with the real one.
 */
export class FakeImageGC implements ImageGC {
  /** Every call, in order. */
  readonly calls: FakeImageGCCall[] = [];
  /** What garbageCollect resolves with. */
  result: ImageGCResult = { bytesToFree: 0, freedBytes: 0, removed: [] };
  /** Returned by imageRecords(). */
  records: ImageRecord[] = [];
  readonly #errors = new Map<FakeImageGCMethod, Error[]>();

  /** The next call of `method` rejects with `error` (queued: one error per call). */
  failNext(method: Exclude<FakeImageGCMethod, 'run'>, error: Error): void {
    const queue = this.#errors.get(method) ?? [];
    queue.push(error);
    this.#errors.set(method, queue);
  }

  /** How many times `method` was called. */
  count(method: FakeImageGCMethod): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  readonly garbageCollect = (): Promise<ImageGCResult> => this.#answer('garbageCollect', () => this.#copy());
  readonly deleteUnusedImages = (): Promise<void> => this.#answer('deleteUnusedImages', () => undefined);
  readonly detectImages = (): Promise<void> => this.#answer('detectImages', () => undefined);
  readonly imageRecords = (): ImageRecord[] => this.records.map((r) => ({ ...r, repoTags: [...r.repoTags] }));

  /** Records the call and resolves when the signal aborts (no periodic work). */
  readonly run = (signal: AbortSignal): Promise<void> => {
    this.calls.push({ method: 'run' });
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  };

  #copy(): ImageGCResult {
    return { ...this.result, removed: this.result.removed.map((r) => ({ ...r, repoTags: [...r.repoTags] })) };
  }

  async #answer<T>(method: FakeImageGCMethod, value: () => T): Promise<T> {
    this.calls.push({ method });
    const error = this.#errors.get(method)?.shift();
    if (error !== undefined) throw error;
    return value();
  }
}
