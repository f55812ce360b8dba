import type { Pod } from '@kubelet-ts/api';
import type { PodUpdateType, PodWorkers } from '../pod-workers.js';
import type { PodManager } from './pod-manager.js';

/** Upstream dispatchWork, and a sync now for a pod that has a worker. */
export interface Dispatcher {
  dispatch(pod: Pod, updateType: PodUpdateType, gracePeriodOverrideSeconds?: number): void;
  /** A sync now for a pod that has a worker (a probe result changed, fresh status after a start). */
  syncNow(uid: string): void;
}

export function createDispatcher(podWorkers: PodWorkers, pods: PodManager): Dispatcher {
  const dispatch = (pod: Pod, updateType: PodUpdateType, gracePeriodOverrideSeconds?: number): void => {
    podWorkers.updatePod({ updateType, pod, ...(gracePeriodOverrideSeconds !== undefined ? { gracePeriodOverrideSeconds } : {}) });
  };
  return {
    dispatch,
    syncNow(uid) {
      if (!podWorkers.isPodKnown(uid)) return;
      const pod = pods.getPodByUID(uid);
      if (pod !== undefined) dispatch(pod, 'sync');
      else podWorkers.resync(uid);
    },
  };
}
