import type { PodSyncResult } from '@kubelet-ts/container-runtime';

/** Why the last start of a container failed: the waiting reason and message the status shows. */
export interface ContainerStartFailure {
  reason: string;
  message: string;
}

/**
 * Upstream ReasonCache: per (pod UID, container name), the failure of the last attempt to start
 * the container (ErrImagePull, ImagePullBackOff, CrashLoopBackOff, CreateContainerConfigError…).
 * A successful start clears it.
 */
export interface ReasonCache {
  get(uid: string, containerName: string): ContainerStartFailure | undefined;
  /** Records the start results of one SyncPod (StartContainer / InitContainer actions only, as upstream). */
  update(uid: string, result: PodSyncResult): void;
  /** Records one failure directly (e.g. a config error found before the runtime was called). */
  add(uid: string, containerName: string, failure: ContainerStartFailure): void;
  remove(uid: string, containerName: string): void;
  /** Forgets every container of a pod. */
  removePod(uid: string): void;
}

export function createReasonCache(): ReasonCache {
  const byPod = new Map<string, Map<string, ContainerStartFailure>>();
  const add = (uid: string, name: string, failure: ContainerStartFailure): void => {
    let pod = byPod.get(uid);
    if (pod === undefined) {
      pod = new Map();
      byPod.set(uid, pod);
    }
    pod.set(name, failure);
  };
  const remove = (uid: string, name: string): void => {
    const pod = byPod.get(uid);
    pod?.delete(name);
    if (pod?.size === 0) byPod.delete(uid);
  };
  return {
    get: (uid, name) => byPod.get(uid)?.get(name),
    update(uid, result) {
      for (const r of result.results) {
        if (r.action !== 'StartContainer' && r.action !== 'InitContainer') continue;
        if (r.reason !== undefined) add(uid, r.target, { reason: r.reason, message: r.message ?? '' });
        else remove(uid, r.target);
      }
    },
    add,
    remove,
    removePod(uid) {
      byPod.delete(uid);
    },
  };
}
