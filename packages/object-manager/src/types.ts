import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { KubeClient } from '@kubelet-ts/kube-client';

/**
 * The objects (ConfigMaps or Secrets) the pods of this node name, each watched on its own while a
 * pod refers to it (upstream's watch-based manager: `configmap.Manager`, `secret.Manager`).
 */
export interface ObjectManager<T> {
  /**
   * Counts a reference from the pod (by UID) to every object it names; the first reference to an
   * object starts its watch. Registering the pod again replaces its references (new ones added,
   * dropped ones released).
   */
  registerPod(pod: Pod): void;
  /** Releases the pod's references; an object nobody names any more is no longer watched. */
  unregisterPod(pod: Pod): void;
  /**
   * The object from its watch, waiting up to 1 s for the first list (upstream polls 10 ms × 1 s); `undefined`
   * when it does not exist. Rejects with ObjectManagerError NOT_REGISTERED (no registered pod names
   * it), SYNC_TIMEOUT, or INVALID_OBJECT. An immutable object stops its watch and is served from
   * the last copy from then on.
   */
  get(namespace: string, name: string): Promise<T | undefined>;
  /** What is referenced now and whether it is watched (for status pages and tests). */
  objects(): ObjectCacheEntry[];
  /** Stops every watch and the idle sweep (kubelet shutdown); later registrations start none. */
  stop(): void;
}

export interface ObjectCacheEntry {
  namespace: string;
  name: string;
  /** UIDs of the pods that name the object. */
  referencedBy: string[];
  /** True while a watch runs (false once immutable, idle, or after stop). */
  watching: boolean;
  immutable: boolean;
}

export interface ObjectManagerOptions {
  /** Any client with list and watch (the kubelet's main KubeClient; tests use kube-client's FakeKubeClient). */
  client: Pick<KubeClient, 'list' | 'watch'>;
  clock?: Clock;
  logger?: Logger;
  /**
   * The kubelet's syncFrequency (default 1 min): an object not read for 5 × this (at least 1 min)
   * stops being watched until the next get, as upstream does for env-only references.
   */
  resyncIntervalMs?: number;
  /** Aborting it is `stop()`. */
  signal?: AbortSignal;
  /** Randomness of the watches' timeouts and back-off jitter (tests make it fixed). */
  random?: () => number;
}
