import type { Pod } from '@kubelet-ts/api';
import {
  ConfigFirstSeenAnnotationKey,
  ConfigMirrorAnnotationKey,
  ConfigSourceAnnotationKey,
  podFullName,
} from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { PodSourceError } from './errors.js';
import { AsyncQueue } from './internal/async-queue.js';
import { jsonEqual, rfc3339Nano } from './internal/json.js';
import type { PodSource, PodUpdate, SourceError, SourceEvent, StaticPodObjectReference } from './types.js';

export interface PodConfigOptions {
  sources: PodSource[];
  logger?: Logger;
  /** Used for the `kubernetes.io/config.seen` annotation. */
  clock?: Clock;
  /** Stops every source and ends `updates` when aborted (same as calling `close()`). */
  signal?: AbortSignal;
  /**
   * API object references this kubelet can serve to static pods, handed to every source (kubelet-ts
   * extension; default none, upstream's PreventStaticPodAPIReferences rule).
   */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
}

/**
 * Upstream PodConfig + podStorage in incremental mode: merges the pods of every source and
 * delivers minimal, ordered updates.
 */
export interface PodConfig {
  /**
   * The ordered stream of updates. One consumer: iterate it once. Within one source change,
   * updates come as upstream orders them: REMOVE, ADD, UPDATE, DELETE, RECONCILE; a source's first
   * snapshot that changes nothing yields an empty ADD, so the consumer learns the source is ready.
   * Ends after `close()`.
   */
  readonly updates: AsyncIterable<PodUpdate>;
  /** Subscribes to problems sources report (bad manifests, failed requests). Returns an unsubscribe function. */
  onSourceError(listener: (error: SourceError) => void): () => void;
  /** True once every source has sent its first full snapshot (upstream SeenAllSources). */
  seenAllSources(): boolean;
  /** Resolves when every source has sent its first full snapshot; rejects (code `CLOSED`) if closed before. */
  readonly allSourcesSeen: Promise<void>;
  /** Copies of every pod currently known, across sources. */
  mergedState(): Pod[];
  /** Stops the sources and ends `updates`; resolves when every source has returned. */
  close(): Promise<void>;
}

// Annotations the kubelet adds itself; changes to them are not changes of the pod.
const LOCAL_ANNOTATIONS = [ConfigSourceAnnotationKey, ConfigMirrorAnnotationKey, ConfigFirstSeenAnnotationKey];

/** Starts every source and merges their events. */
export function createPodConfig(options: PodConfigOptions): PodConfig {
  const logger = options.logger ?? noopLogger;
  const clock = options.clock ?? systemClock;
  const names = new Set<string>();
  for (const source of options.sources) {
    if (names.has(source.name)) throw new PodSourceError('DUPLICATE_SOURCE', `two pod sources are named ${JSON.stringify(source.name)}`);
    names.add(source.name);
  }

  const queue = new AsyncQueue<PodUpdate>();
  const storage = new Map<string, Map<string, Pod>>();
  const seen = new Set<string>();
  const errorListeners = new Set<(error: SourceError) => void>();
  const controller = new AbortController();
  let resolveSeen!: () => void;
  let rejectSeen!: (err: unknown) => void;
  const allSourcesSeen = new Promise<void>((resolve, reject) => {
    resolveSeen = resolve;
    rejectSeen = reject;
  });
  // Closing before every source was seen rejects; do not report that as unhandled when nobody waits.
  allSourcesSeen.catch(() => undefined);
  if (names.size === 0) resolveSeen();

  const reportErrors = (errors: SourceError[]): void => {
    for (const error of errors) {
      for (const listener of errorListeners) {
        try {
          listener(error);
        } catch (err) {
          logger.error('Source error listener threw', { err: errorMessage(err) });
        }
      }
    }
  };

  const merge = (source: string, event: SourceEvent): void => {
    if (event.kind === 'error') {
      reportErrors(event.errors);
      return;
    }
    const adds: Pod[] = [];
    const updates: Pod[] = [];
    const deletes: Pod[] = [];
    const removes: Pod[] = [];
    const reconciles: Pod[] = [];
    const seenBefore = seen.has(source);
    let pods = storage.get(source) ?? new Map<string, Pod>();

    const apply = (incoming: Pod[], previous: Map<string, Pod>, next: Map<string, Pod>): void => {
      for (const ref of filterDuplicateNames(incoming, source)) {
        ref.metadata.annotations = { ...ref.metadata.annotations, [ConfigSourceAnnotationKey]: source };
        const existing = previous.get(ref.metadata.uid);
        if (existing === undefined) {
          ref.metadata.annotations[ConfigFirstSeenAnnotationKey] = rfc3339Nano(clock.now());
          next.set(ref.metadata.uid, ref);
          adds.push(ref);
          continue;
        }
        next.set(ref.metadata.uid, existing);
        const change = checkAndUpdatePod(existing, ref);
        if (change === 'update') updates.push(existing);
        else if (change === 'delete') deletes.push(existing);
        else if (change === 'reconcile') reconciles.push(existing);
      }
    };

    const incoming = event.pods.map((p) => structuredClone(p));
    switch (event.kind) {
      case 'add':
      case 'update':
      case 'delete':
        apply(incoming, pods, pods);
        break;
      case 'remove':
        for (const pod of incoming) {
          const existing = pods.get(pod.metadata.uid);
          if (existing === undefined) continue;
          pods.delete(pod.metadata.uid);
          removes.push(existing);
        }
        break;
      case 'set': {
        seen.add(source);
        const previous = pods;
        pods = new Map();
        apply(incoming, previous, pods);
        for (const [uid, existing] of previous) if (!pods.has(uid)) removes.push(existing);
        break;
      }
    }
    storage.set(source, pods);

    const push = (op: PodUpdate['op'], list: Pod[]): void => {
      queue.push({ op, source, pods: list.map((p) => structuredClone(p)) });
    };
    const firstSet = !seenBefore && seen.has(source);
    if (removes.length > 0) push('REMOVE', removes);
    if (adds.length > 0) push('ADD', adds);
    if (updates.length > 0) push('UPDATE', updates);
    if (deletes.length > 0) push('DELETE', deletes);
    // An empty ADD tells the consumer this source is ready when its first snapshot changed nothing.
    if (firstSet && adds.length === 0 && updates.length === 0 && deletes.length === 0) push('ADD', []);
    if (reconciles.length > 0) push('RECONCILE', reconciles);
    if (firstSet) {
      logger.info('Pod source seen', { source });
      if ([...names].every((n) => seen.has(n))) resolveSeen();
    }
  };

  const filterDuplicateNames = (pods: Pod[], source: string): Pod[] => {
    const names = new Set<string>();
    const out: Pod[] = [];
    for (const pod of pods) {
      const name = podFullName(pod);
      if (names.has(name)) {
        logger.warn('Pod failed validation due to duplicate pod name, ignoring', { pod: name, source });
        reportErrors([{ source, file: name, path: 'metadata.name', reason: `Duplicate value ${JSON.stringify(pod.metadata.name)}: another pod of this source has the same name` }]);
        continue;
      }
      names.add(name);
      out.push(pod);
    }
    return out;
  };

  const running = options.sources.map(async (source) => {
    try {
      await source.run((event) => {
        if (controller.signal.aborted) return;
        try {
          merge(source.name, event);
        } catch (err) {
          logger.error('Failed to merge pod source event', { source: source.name, err: errorMessage(err) });
        }
      }, controller.signal, { allowedObjectReferences: [...(options.allowedObjectReferences ?? [])] });
    } catch (err) {
      logger.error('Pod source stopped with an error', { source: source.name, err: errorMessage(err) });
    }
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const closed = new PodSourceError('CLOSED', 'pod config closed');
      controller.abort(closed);
      rejectSeen(closed);
      await Promise.all(running);
      queue.close();
    })();
    return closing;
  };
  if (options.signal !== undefined) {
    if (options.signal.aborted) void close();
    else options.signal.addEventListener('abort', () => void close(), { once: true });
  }

  return {
    updates: queue,
    onSourceError(listener) {
      errorListeners.add(listener);
      return () => errorListeners.delete(listener);
    },
    seenAllSources: () => [...names].every((n) => seen.has(n)),
    allSourcesSeen,
    mergedState() {
      const out: Pod[] = [];
      for (const pods of storage.values()) for (const pod of pods.values()) out.push(structuredClone(pod));
      return out;
    },
    close,
  };
}

function annotationsEqualIgnoringLocal(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const strip = (m: Record<string, string> | undefined): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(m ?? {})) if (!LOCAL_ANNOTATIONS.includes(k)) out[k] = v;
    return out;
  };
  return jsonEqual(strip(a), strip(b));
}

/** Upstream podsDifferSemantically: spec, labels, deletion fields and non-local annotations. */
function podsDifferSemantically(existing: Pod, ref: Pod): boolean {
  return !(
    jsonEqual(existing.spec, ref.spec) &&
    jsonEqual(existing.metadata.labels ?? {}, ref.metadata.labels ?? {}) &&
    existing.metadata.deletionTimestamp === ref.metadata.deletionTimestamp &&
    existing.metadata.deletionGracePeriodSeconds === ref.metadata.deletionGracePeriodSeconds &&
    annotationsEqualIgnoringLocal(existing.metadata.annotations, ref.metadata.annotations)
  );
}

/**
 * Upstream checkAndUpdatePod: updates `existing` in place and says what kind of change it was.
 * Status-only changes are a reconcile; a change with a deletion timestamp is a graceful delete.
 */
function checkAndUpdatePod(existing: Pod, ref: Pod): 'update' | 'delete' | 'reconcile' | 'none' {
  if (!podsDifferSemantically(existing, ref)) {
    if (!jsonEqual(existing.status ?? {}, ref.status ?? {})) {
      existing.status = ref.status;
      return 'reconcile';
    }
    return 'none';
  }
  existing.spec = ref.spec;
  existing.metadata.labels = ref.metadata.labels;
  existing.metadata.deletionTimestamp = ref.metadata.deletionTimestamp;
  existing.metadata.deletionGracePeriodSeconds = ref.metadata.deletionGracePeriodSeconds;
  existing.status = ref.status;
  // Take the new annotations but keep the kubelet's own (first seen time, source, mirror).
  const annotations: Record<string, string> = { ...ref.metadata.annotations };
  for (const key of LOCAL_ANNOTATIONS) {
    const value = existing.metadata.annotations?.[key];
    if (value !== undefined) annotations[key] = value;
  }
  existing.metadata.annotations = annotations;
  return ref.metadata.deletionTimestamp !== undefined ? 'delete' : 'update';
}
