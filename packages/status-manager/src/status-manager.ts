import type { ContainerStatus, Pod, PodCondition, PodStatus } from '@kubelet-ts/api';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { generateContainersReadyCondition, generatePodReadyCondition, updateLastTransitionTimes } from './conditions.js';
import { terminalStatus } from './internal/terminate.js';
import type {
  PodStatusListener,
  StatusListenerOptions,
  StatusManager,
  StatusManagerOptions,
  StatusSink,
  VersionedPodStatus,
} from './types.js';

/** A sink that sends nothing anywhere: standalone mode. */
export const noopStatusSink: StatusSink = {
  statusChanged: () => undefined,
  statusRemoved: () => undefined,
};

interface Entry {
  pod: Pod;
  versioned: VersionedPodStatus;
}

function podKey(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

function sameStatus(a: PodStatus | undefined, b: PodStatus): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

/** Container IDs compared without the runtime's scheme (`containerd://`). */
function bareId(id: string | undefined): string {
  return (id ?? '').replace(/^[^:]+:\/\//, '');
}

function findContainerStatus(status: PodStatus, containerID: string): ContainerStatus | undefined {
  const id = bareId(containerID);
  if (id === '') return undefined;
  return [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])].find((s) => bareId(s.containerID) === id);
}

/** The status's conditions with Ready and ContainersReady generated anew from its container statuses (upstream updateConditionFunc). */
function withReadyConditions(pod: Pod, status: PodStatus, previous: readonly PodCondition[], now: number): PodCondition[] {
  const all = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])];
  const phase = status.phase ?? 'Pending';
  const conditions: PodCondition[] = [...(status.conditions ?? [])];
  const replace = (condition: PodCondition): void => {
    const i = conditions.findIndex((c) => c.type === condition.type);
    if (i >= 0) conditions[i] = condition;
    else conditions.push(condition);
  };
  replace(generatePodReadyCondition(pod, conditions, all, phase));
  replace(generateContainersReadyCondition(pod, all, phase));
  return updateLastTransitionTimes(conditions, previous, now);
}

export function createStatusManager(options: StatusManagerOptions = {}): StatusManager {
  const sink = options.sink ?? noopStatusSink;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const entries = new Map<string, Entry>();
  const listeners = new Map<PodStatusListener, { everySync: boolean }>();

  const notify = (pod: Pod, status: PodStatus, changed: boolean): void => {
    for (const [listener, { everySync }] of listeners) {
      if (!changed && !everySync) continue;
      try {
        listener(pod, status);
      } catch (err) {
        logger.error('Pod status listener failed', { pod: podKey(pod), podUID: pod.metadata.uid, err: errorMessage(err) });
      }
    }
  };

  const tellSink = (call: () => void): void => {
    try {
      call();
    } catch (err) {
      logger.error('Pod status sink failed', { err: errorMessage(err) });
    }
  };

  // Upstream updateStatusInternal, without the API-side checks: a changed status gets the next version.
  const store = (pod: Pod, status: PodStatus, fromSync: boolean, podIsFinished = false): void => {
    const uid = pod.metadata.uid;
    const old = entries.get(uid);
    const changed = !sameStatus(old?.versioned.status, status) || (podIsFinished && old?.versioned.podIsFinished !== true);
    if (changed) {
      const versioned: VersionedPodStatus = {
        uid,
        name: pod.metadata.name,
        namespace: pod.metadata.namespace,
        version: (old?.versioned.version ?? 0) + 1,
        status,
        podIsFinished: podIsFinished || old?.versioned.podIsFinished === true,
        at: clock.now(),
      };
      entries.set(uid, { pod, versioned });
      tellSink(() => sink.statusChanged(versioned));
    } else if (old !== undefined) {
      old.pod = pod;
    }
    if (changed || fromSync) notify(pod, status, changed);
  };

  /** A copy of the stored status with one container's status changed, or undefined when nothing changes. */
  const withContainer = (
    uid: string,
    containerID: string,
    change: (s: ContainerStatus) => boolean,
  ): { entry: Entry; status: PodStatus } | undefined => {
    const entry = entries.get(uid);
    if (entry === undefined) {
      logger.debug('Container probe result before the pod has a status; ignored', { podUID: uid, containerID });
      return undefined;
    }
    const status = structuredClone(entry.versioned.status);
    const container = findContainerStatus(status, containerID);
    if (container === undefined) {
      logger.debug('Container probe result for a container the status does not show; ignored', { podUID: uid, containerID });
      return undefined;
    }
    return change(container) ? { entry, status } : undefined;
  };

  return {
    getPodStatus: (uid) => entries.get(uid)?.versioned.status,
    getVersionedPodStatus: (uid) => entries.get(uid)?.versioned,
    setPodStatus(pod, status, setOptions) {
      store(pod, status, setOptions?.fromSync === true);
    },
    setContainerReadiness(uid, containerID, ready) {
      const found = withContainer(uid, containerID, (c) => {
        if (c.ready === ready) return false;
        c.ready = ready;
        return true;
      });
      if (found === undefined) return;
      const { entry, status } = found;
      status.conditions = withReadyConditions(entry.pod, status, entry.versioned.status.conditions ?? [], clock.now());
      store(entry.pod, status, false);
    },
    setContainerStartup(uid, containerID, started) {
      const found = withContainer(uid, containerID, (c) => {
        if (c.started === started) return false;
        c.started = started;
        return true;
      });
      if (found !== undefined) store(found.entry.pod, found.status, false);
    },
    terminatePod(pod) {
      const current = entries.get(pod.metadata.uid)?.versioned.status ?? pod.status ?? {};
      store(pod, terminalStatus(pod, current), false, true);
    },
    deletePodStatus(uid) {
      if (entries.delete(uid)) tellSink(() => sink.statusRemoved(uid));
    },
    removeOrphanedStatuses(keep) {
      const removed: string[] = [];
      for (const uid of [...entries.keys()]) {
        if (keep(uid)) continue;
        entries.delete(uid);
        removed.push(uid);
        tellSink(() => sink.statusRemoved(uid));
      }
      return removed;
    },
    onStatusChange(listener, listenerOptions?: StatusListenerOptions) {
      listeners.set(listener, { everySync: listenerOptions?.everySync === true });
      return () => listeners.delete(listener);
    },
  };
}
