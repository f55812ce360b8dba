import type { Pod } from '@kubelet-ts/api';
import { ConfigFirstSeenAnnotationKey, ConfigSourceAnnotationKey, isStaticPod, podFullName } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { PodUpdate, SourceError, SourceEvent } from '../types.js';
import { checkAndUpdatePod, podChange } from './check-and-update-pod.js';
import { rfc3339Nano } from './json.js';

/** Upstream podStorage: the pods of every source, by source and UID, and the sources seen. */
export interface PodStorage {
  /**
   * Upstream podStorage.Merge for one source's pods event: updates the stored pods and pushes the
   * updates, ordered as upstream. True when the event was the source's first snapshot.
   */
  merge(source: string, event: Exclude<SourceEvent, { kind: 'error' }>): boolean;
  /** The source has sent a full snapshot. */
  seen(source: string): boolean;
  /** Copies of every pod stored, across sources. */
  mergedState(): Pod[];
}

export interface PodStorageOptions {
  clock: Clock;
  logger: Logger;
  push: (update: PodUpdate) => void;
  reportErrors: (errors: SourceError[]) => void;
  /** Every pod that is not static, as its source delivered it (upstream's startupSLIObserver.ObservedPodOnWatch). */
  observePod?: (pod: Pod, whenMs: number) => void;
}

/** The updates of one merge, by kind. */
interface Changes {
  adds: Pod[];
  updates: Pod[];
  deletes: Pod[];
  removes: Pod[];
  reconciles: Pod[];
}

export function createPodStorage(o: PodStorageOptions): PodStorage {
  const storage = new Map<string, Map<string, Pod>>();
  const seen = new Set<string>();

  // Upstream filterInvalidPods, for names: the first pod of a full name wins, later ones are reported.
  const filterDuplicateNames = (pods: Pod[], source: string): Pod[] => {
    const names = new Set<string>();
    const out: Pod[] = [];
    for (const pod of pods) {
      const name = podFullName(pod);
      if (names.has(name)) {
        o.logger.warn('Pod failed validation due to duplicate pod name, ignoring', { pod: name, source });
        o.reportErrors([
          {
            source,
            file: name,
            path: 'metadata.name',
            reason: `Duplicate value ${JSON.stringify(pod.metadata.name)}: another pod of this source has the same name`,
          },
        ]);
        continue;
      }
      names.add(name);
      out.push(pod);
    }
    return out;
  };

  // An observer that throws does not stop the merge.
  const observe = (observer: (pod: Pod, whenMs: number) => void, pod: Pod): void => {
    try {
      observer(pod, o.clock.now());
    } catch (err) {
      o.logger.error('Pod observer failed', { pod: podFullName(pod), err: errorMessage(err) });
    }
  };

  /**
   * The source's pods are compared as they came (with the source annotation on a shallow copy) and
   * copied only when stored: a source that sends its whole set on every change (the API server's, as
   * upstream's) would otherwise have every pod deep-copied on every event — O(pods²) over a mass start.
   */
  const apply = (source: string, changes: Changes, incoming: Pod[], previous: Map<string, Pod>, next: Map<string, Pod>): void => {
    const merged = mergedAs(source);
    for (const delivered of filterDuplicateNames(incoming, source)) {
      const uid = delivered.metadata.uid;
      const last = merged.get(uid);
      // The very object merged last time (sources send a new object for a changed pod): nothing to compare.
      const same = last?.delivered === delivered;
      const ref: Pod = same
        ? last.ref
        : {
            ...delivered,
            metadata: { ...delivered.metadata, annotations: { ...delivered.metadata.annotations, [ConfigSourceAnnotationKey]: source } },
          };
      merged.set(uid, { delivered, ref });
      if (o.observePod !== undefined && !isStaticPod(ref)) observe(o.observePod, ref);
      const existing = previous.get(uid);
      if (existing === undefined) {
        const added = structuredClone(ref);
        (added.metadata.annotations ??= {})[ConfigFirstSeenAnnotationKey] = rfc3339Nano(o.clock.now());
        next.set(added.metadata.uid, added);
        changes.adds.push(added);
        continue;
      }
      next.set(uid, existing);
      if (same || podChange(existing, ref) === 'none') continue;
      const change = checkAndUpdatePod(existing, structuredClone(ref));
      if (change === 'update') changes.updates.push(existing);
      else if (change === 'delete') changes.deletes.push(existing);
      else if (change === 'reconcile') changes.reconciles.push(existing);
    }
  };

  // Per source, by UID: the object last merged and its annotated view (what a pod unchanged since is skipped by).
  const lastMerged = new Map<string, Map<string, { delivered: Pod; ref: Pod }>>();
  const mergedAs = (source: string): Map<string, { delivered: Pod; ref: Pod }> => {
    let merged = lastMerged.get(source);
    if (merged === undefined) lastMerged.set(source, (merged = new Map()));
    return merged;
  };

  const pushChanges = (source: string, changes: Changes, firstSet: boolean): void => {
    const push = (op: PodUpdate['op'], list: Pod[]): void => {
      o.push({ op, source, pods: list.map((p) => structuredClone(p)) });
    };
    const { adds, updates, deletes, removes, reconciles } = changes;
    if (removes.length > 0) push('REMOVE', removes);
    if (adds.length > 0) push('ADD', adds);
    if (updates.length > 0) push('UPDATE', updates);
    if (deletes.length > 0) push('DELETE', deletes);
    // An empty ADD tells the consumer this source is ready when its first snapshot changed nothing.
    if (firstSet && adds.length === 0 && updates.length === 0 && deletes.length === 0) push('ADD', []);
    if (reconciles.length > 0) push('RECONCILE', reconciles);
  };

  return {
    merge(source, event) {
      const changes: Changes = { adds: [], updates: [], deletes: [], removes: [], reconciles: [] };
      const seenBefore = seen.has(source);
      let pods = storage.get(source) ?? new Map<string, Pod>();
      const incoming = event.pods;
      switch (event.kind) {
        case 'add':
        case 'update':
        case 'delete':
          apply(source, changes, incoming, pods, pods);
          break;
        case 'remove':
          for (const pod of incoming) {
            mergedAs(source).delete(pod.metadata.uid);
            const existing = pods.get(pod.metadata.uid);
            if (existing === undefined) continue;
            pods.delete(pod.metadata.uid);
            changes.removes.push(existing);
          }
          break;
        case 'set': {
          seen.add(source);
          const previous = pods;
          pods = new Map();
          apply(source, changes, incoming, previous, pods);
          for (const [uid, existing] of previous) if (!pods.has(uid)) changes.removes.push(existing);
          const merged = mergedAs(source);
          for (const uid of merged.keys()) if (!pods.has(uid)) merged.delete(uid);
          break;
        }
      }
      storage.set(source, pods);
      const firstSet = !seenBefore && seen.has(source);
      pushChanges(source, changes, firstSet);
      return firstSet;
    },
    seen: (source) => seen.has(source),
    mergedState() {
      const out: Pod[] = [];
      for (const pods of storage.values()) for (const pod of pods.values()) out.push(structuredClone(pod));
      return out;
    },
  };
}
