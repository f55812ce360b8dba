import type { RuntimePodStatus } from '@kubelet-ts/container-runtime';
import { PodLifecycleError } from './errors.js';

/** One cache entry: the newest runtime status of a pod (or the error reading it) and when it was read. */
export interface PodCacheEntry {
  status: RuntimePodStatus;
  error?: Error;
  /** When the status was read (ms since the epoch): the time taken *before* the runtime call. */
  modifiedAt: number;
}

/**
 * Upstream container/cache.go: the newest RuntimePodStatus per pod UID, written by the PLEG and
 * read by pod workers. `getNewerThan` lets a pod worker wait until the cache holds a status read
 * after its previous sync finished, so a sync never acts on state older than its own last action.
 */
export interface PodStatusCache {
  /** The entry of a pod; an empty status when the cache has never seen it. */
  get(uid: string): PodCacheEntry;
  /** Stores a status (or the error of reading it) read at `modifiedAt`. */
  set(uid: string, status: RuntimePodStatus | undefined, error: Error | undefined, modifiedAt: number): void;
  /**
   * Resolves with the pod's status once it was read strictly after `minTimeMs`, or once the
   * cache as a whole is known to be newer than that (a relist that found nothing to change for
   * the pod). Rejects with the stored read error, or with the signal's reason when aborted.
   */
  getNewerThan(uid: string, minTimeMs: number, signal?: AbortSignal): Promise<RuntimePodStatus>;
  /** Declares every entry current as of `timestamp` (called by the PLEG after each relist). */
  updateTime(timestamp: number): void;
  delete(uid: string): void;
  /** The time passed to the last `updateTime`, or undefined before the first relist. */
  readonly globalTimestamp: number | undefined;
}

interface Waiter {
  minTimeMs: number;
  resolve: (status: RuntimePodStatus) => void;
  reject: (err: unknown) => void;
}

/** An empty status for a pod the runtime knows nothing about (upstream: PodStatus{ID: uid}). */
export function emptyRuntimePodStatus(uid: string, timestamp = 0): RuntimePodStatus {
  return { uid, name: '', namespace: '', ips: [], sandboxes: [], containers: [], timestamp };
}

export function createPodStatusCache(): PodStatusCache {
  const entries = new Map<string, PodCacheEntry>();
  const waiters = new Map<string, Set<Waiter>>();
  let globalTimestamp: number | undefined;

  const get = (uid: string): PodCacheEntry => entries.get(uid) ?? { status: emptyRuntimePodStatus(uid), modifiedAt: 0 };

  // Upstream answers with the entry when either it or the whole cache is newer than minTime.
  const fresh = (uid: string, minTimeMs: number): PodCacheEntry | undefined => {
    const entry = entries.get(uid);
    if (entry !== undefined && entry.modifiedAt > minTimeMs) return entry;
    if (globalTimestamp !== undefined && globalTimestamp > minTimeMs) return get(uid);
    return undefined;
  };

  const settle = (entry: PodCacheEntry, waiter: Waiter): void => {
    if (entry.error !== undefined) waiter.reject(entry.error);
    else waiter.resolve(entry.status);
  };

  const notify = (uid: string): void => {
    const set = waiters.get(uid);
    if (set === undefined) return;
    for (const waiter of [...set]) {
      const entry = fresh(uid, waiter.minTimeMs);
      if (entry === undefined) continue;
      set.delete(waiter);
      settle(entry, waiter);
    }
    if (set.size === 0) waiters.delete(uid);
  };

  return {
    get,
    set(uid, status, error, modifiedAt) {
      entries.set(uid, { status: status ?? emptyRuntimePodStatus(uid, modifiedAt), ...(error !== undefined ? { error } : {}), modifiedAt });
      notify(uid);
    },
    getNewerThan(uid, minTimeMs, signal) {
      const entry = fresh(uid, minTimeMs);
      if (entry !== undefined) {
        return entry.error !== undefined ? Promise.reject(entry.error) : Promise.resolve(entry.status);
      }
      return new Promise<RuntimePodStatus>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(new PodLifecycleError('ABORTED', 'waiting for a newer pod status was aborted', { cause: signal.reason }));
          return;
        }
        const onAbort = (): void => {
          waiters.get(uid)?.delete(waiter);
          reject(new PodLifecycleError('ABORTED', 'waiting for a newer pod status was aborted', { cause: signal?.reason }));
        };
        const waiter: Waiter = {
          minTimeMs,
          resolve: (status) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(status);
          },
          reject: (err) => {
            signal?.removeEventListener('abort', onAbort);
            reject(err);
          },
        };
        let set = waiters.get(uid);
        if (set === undefined) {
          set = new Set();
          waiters.set(uid, set);
        }
        set.add(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    updateTime(timestamp) {
      globalTimestamp = timestamp;
      for (const uid of [...waiters.keys()]) notify(uid);
    },
    delete(uid) {
      entries.delete(uid);
    },
    get globalTimestamp() {
      return globalTimestamp;
    },
  };
}
