import type { Clock } from '@kubelet-ts/common';
import type { StatusManager } from '@kubelet-ts/status-manager';
import { PodLifecycleError } from '../errors.js';
import type { PodStatusCache } from '../pod-cache.js';
import type { PodWorkers } from '../pod-workers.js';
import type { EvictPodRequest } from '../types.js';
import type { Dispatcher } from './dispatch.js';
import { podKey } from './pod-manager.js';
import type { PodManager } from './pod-manager.js';
import type { StatusGenerator } from './pod-status.js';

/** Upstream killPodNow waits the grace period plus this much before giving up. */
const KILL_WAIT_MARGIN_MS = 10_000;

export interface PodKillerOptions {
  pods: Pick<PodManager, 'getPodByUID'>;
  podWorkers: Pick<PodWorkers, 'state' | 'workers'>;
  /** Written here: the evicted pod keeps its terminal status while a source lists it. */
  stoppedByKubelet: Map<string, EvictPodRequest>;
  statusManager: Pick<StatusManager, 'setPodStatus'>;
  generate: StatusGenerator;
  cache: Pick<PodStatusCache, 'get'>;
  dispatch: Dispatcher['dispatch'];
  clock: Clock;
}

export interface PodKiller {
  /** Upstream killPodNow with a status function (see PodLifecycle.evictPod). */
  evictPod(uid: string, request: EvictPodRequest): Promise<void>;
  /** The pod's containers are all stopped: its evictPod callers resolve. */
  podKilled(uid: string): void;
}

export function createPodKiller(o: PodKillerOptions): PodKiller {
  /** evictPod callers waiting for a pod's containers to stop. */
  const waiters = new Map<string, Array<() => void>>();
  return {
    evictPod(uid, request) {
      const pod = o.pods.getPodByUID(uid) ?? o.podWorkers.workers().find((w) => w.uid === uid)?.pod;
      if (pod === undefined)
        return Promise.reject(new PodLifecycleError('KILL_FAILED', `cannot evict pod ${JSON.stringify(uid)}: not known`));
      o.stoppedByKubelet.set(uid, request);
      if (o.podWorkers.state(uid) === 'terminated') {
        o.statusManager.setPodStatus(pod, o.generate(pod, o.cache.get(uid).status, true));
        return Promise.resolve();
      }
      return new Promise<void>((resolve, reject) => {
        const timer = o.clock.setTimeout(
          () => {
            waiters.set(
              uid,
              (waiters.get(uid) ?? []).filter((w) => w !== done),
            );
            reject(new PodLifecycleError('KILL_FAILED', `timeout waiting to kill pod ${JSON.stringify(podKey(pod))}`));
          },
          Math.max(0, request.gracePeriodSeconds) * 1000 + KILL_WAIT_MARGIN_MS,
        );
        const done = (): void => {
          o.clock.clearTimeout(timer);
          resolve();
        };
        waiters.set(uid, [...(waiters.get(uid) ?? []), done]);
        o.dispatch(pod, 'kill', request.gracePeriodSeconds);
      });
    },
    podKilled(uid) {
      const list = waiters.get(uid) ?? [];
      waiters.delete(uid);
      for (const resolve of list) resolve();
    },
  };
}
