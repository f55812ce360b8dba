import type { Pod } from '@kubelet-ts/api';
import { getPodQOSClass } from '@kubelet-ts/api';
import type { EventRecorder, Logger } from '@kubelet-ts/common';
import { errorMessage, EventType } from '@kubelet-ts/common';
import type { StatusManager } from '@kubelet-ts/status-manager';
import type { PodWorkers } from '../pod-workers.js';
import type { EvictPodRequest, PodAdmitHandler } from '../types.js';
import type { Dispatcher } from './dispatch.js';
import { podReference } from './events.js';
import { podKey } from './pod-manager.js';

/** Upstream rejectPod: the admission message is prefixed. */
const REJECTED_MESSAGE_PREFIX = 'Pod was rejected: ';

export interface AdmissionOptions {
  handlers: readonly PodAdmitHandler[];
  podWorkers: Pick<PodWorkers, 'isPodKnown'>;
  /** Written here: a refused pod keeps its Failed status while a source lists it. */
  stoppedByKubelet: Map<string, EvictPodRequest>;
  statusManager: Pick<StatusManager, 'setPodStatus'>;
  /** The pods that may still run (upstream GetActivePods): what a handler weighs the new pod against. */
  getActivePods: () => Pod[];
  dispatch: Dispatcher['dispatch'];
  logger: Logger;
  recorder: EventRecorder;
}

export type AdmitDecision = { admit: false } | { admit: true; startAfter?: Promise<void> };

export interface Admission {
  /**
   * Upstream HandlePodAdditions → canAdmitPod / rejectPod, for pods not started yet. A refused pod
   * is stopped at once (nothing of it may run) and keeps phase Failed with the handler's reason.
   * An admitted pod may have to wait for `startAfter` (the pods preempted for it).
   */
  admit(pod: Pod): AdmitDecision;
  addPodAdmitHandler(handler: PodAdmitHandler): () => void;
}

const ADMITTED: AdmitDecision = { admit: true };

export function createAdmission(o: AdmissionOptions): Admission {
  const handlers = [...o.handlers];
  const reject = (pod: Pod, reason: string, message: string): void => {
    const uid = pod.metadata.uid;
    o.logger.warn('Pod admission refused', { pod: podKey(pod), podUID: uid, reason, message: REJECTED_MESSAGE_PREFIX + message });
    o.recorder.event(podReference(pod), EventType.Warning, reason, message);
    o.stoppedByKubelet.set(uid, { gracePeriodSeconds: 0, reason, message: REJECTED_MESSAGE_PREFIX + message });
    o.statusManager.setPodStatus(pod, {
      phase: 'Failed',
      reason,
      message: REJECTED_MESSAGE_PREFIX + message,
      qosClass: pod.status?.qosClass ?? getPodQOSClass(pod),
    });
    // Through the worker, so that a pod adopted from the runtime (kubelet restart) is stopped too.
    o.dispatch(pod, 'kill', 0);
  };
  return {
    admit(pod) {
      const uid = pod.metadata.uid;
      if (handlers.length === 0 || o.podWorkers.isPodKnown(uid) || o.stoppedByKubelet.has(uid)) return ADMITTED;
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return ADMITTED;
      const otherPods = o.getActivePods().filter((p) => p.metadata.uid !== uid);
      const waits: Promise<void>[] = [];
      for (const handler of handlers) {
        let result;
        try {
          result = handler.admit({ pod, otherPods });
        } catch (err) {
          o.logger.error('Pod admit handler failed; admitting', { pod: podKey(pod), podUID: uid, err: errorMessage(err) });
          continue;
        }
        if (result.startAfter !== undefined) waits.push(result.startAfter.catch(() => undefined));
        if (result.admit) continue;
        reject(pod, result.reason ?? 'UnexpectedAdmissionError', result.message ?? '');
        return { admit: false };
      }
      return waits.length === 0 ? ADMITTED : { admit: true, startAfter: Promise.all(waits).then(() => undefined) };
    },
    addPodAdmitHandler(handler) {
      handlers.push(handler);
      return () => {
        const i = handlers.indexOf(handler);
        if (i >= 0) handlers.splice(i, 1);
      };
    },
  };
}
