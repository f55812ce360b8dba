import type { Pod } from '@kubelet-ts/api';
import { PodSourceName } from '@kubelet-ts/api';
import type { Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { formatSourceError, PodSourceError } from './errors.js';
import { ApiPodJudge } from './internal/api-pods.js';
import type { EmitSourceEvent, PodSource } from './types.js';

/** The handler an informer calls; objects are whatever the informer stores (validated again here). */
export interface PodInformerEventHandler {
  onAdd?(obj: unknown): void;
  onUpdate?(oldObj: unknown, newObj: unknown): void;
  onDelete?(obj: unknown): void;
}

/**
 * The part of an informer the API source uses (structurally a subset of kube-client's
 * `Informer<Pod>`): the informer over `/api/v1/pods?fieldSelector=spec.nodeName=<node>`, which the
 * kubelet starts once its Node is known. The source never starts or stops it.
 */
export interface PodInformer {
  list(): readonly unknown[];
  hasSynced(): boolean;
  waitForSync(signal?: AbortSignal): Promise<void>;
  /** Returns the unsubscribe function. */
  addEventHandler(handler: PodInformerEventHandler): () => void;
}

export interface ApiSourceOptions {
  informer: PodInformer;
  /** This node: pods bound elsewhere are refused (the field selector should never let one through). */
  nodeName: string;
  logger?: Logger;
}

/** Called with every mirror pod of this node (copies), each time that set changes. */
export type MirrorPodsListener = (mirrorPods: Pod[]) => void;

/**
 * The API pod source. Mirror pods (annotation `kubernetes.io/config.mirror`) are not pods to run:
 * they never reach the mux, and go to whoever keeps the static pod ↔ mirror pod mapping through
 * {@link ApiPodSource.onMirrorPods}.
 */
export interface ApiPodSource extends PodSource {
  /** Subscribes to the mirror pods of this node; the listener hears the current set at once when the informer has synced. Returns the unsubscribe function. */
  onMirrorPods(listener: MirrorPodsListener): () => void;
  /** Copies of the current mirror pods (empty before the first sync). */
  mirrorPods(): Pod[];
}

/** Identity of a set of pods: a change of any member (resourceVersion) or of membership is a change. */
function setKey(pods: readonly Pod[]): string {
  return pods
    .map((p) => `${p.metadata.uid}@${p.metadata.resourceVersion ?? JSON.stringify(p)}`)
    .sort()
    .join(',');
}

/**
 * Upstream pkg/kubelet/config/apiserver.go: the pods bound to this node, from an informer, as a full
 * `set` after every change (upstream's UndeltaStore pushes the whole store as a SET), starting once
 * the informer has synced. Changes within one tick are delivered as one set. Pods with a
 * deletionTimestamp stay in the set (the mux makes them a DELETE, the lifecycle kills them with their
 * grace period); a deleted pod leaves it (a REMOVE). Each object is validated (`parsePod` with
 * `validatePod`); an invalid pod or one bound to another node is reported as a `SourceError`
 * (source `api`, `pods/<ns>/<name>`, field, reason), logged once per version, and skipped.
 */
export function createApiSource(options: ApiSourceOptions): ApiPodSource {
  if (options.nodeName === '') throw new PodSourceError('INVALID_OPTIONS', 'createApiSource: nodeName is required');
  const logger = (options.logger ?? noopLogger).child({ source: PodSourceName.Api });
  const informer = options.informer;
  const mirrorListeners = new Set<MirrorPodsListener>();
  let mirrorPods: Pod[] = [];
  let mirrorKey: string | undefined;
  let running = false;

  const tellMirrorListeners = (listeners: Iterable<MirrorPodsListener>): void => {
    for (const listener of listeners) {
      try {
        listener(mirrorPods.map((p) => structuredClone(p)));
      } catch (err) {
        logger.error('Mirror pod listener failed', { err: errorMessage(err) });
      }
    }
  };

  return {
    name: PodSourceName.Api,
    onMirrorPods(listener) {
      mirrorListeners.add(listener);
      if (mirrorKey !== undefined) tellMirrorListeners([listener]);
      return () => mirrorListeners.delete(listener);
    },
    mirrorPods: () => mirrorPods.map((p) => structuredClone(p)),

    async run(emit: EmitSourceEvent, signal: AbortSignal): Promise<void> {
      if (running) throw new PodSourceError('INVALID_OPTIONS', 'the API pod source is already running');
      if (signal.aborted) return;
      running = true;
      const judge = new ApiPodJudge(options.nodeName);
      let synced = false;
      let flushQueued = false;

      const flush = (): void => {
        flushQueued = false;
        if (!synced || signal.aborted) return;
        const snapshot = judge.snapshot(informer.list());
        if (snapshot.newErrors.length > 0) {
          for (const e of snapshot.newErrors) logger.error('Refused pod from the API server', { err: formatSourceError(e) });
          emit({ kind: 'error', errors: snapshot.newErrors });
        }
        emit({ kind: 'set', pods: snapshot.pods });
        const key = setKey(snapshot.mirrorPods);
        if (key !== mirrorKey) {
          mirrorKey = key;
          mirrorPods = snapshot.mirrorPods;
          tellMirrorListeners([...mirrorListeners]);
        }
      };
      // Coalesce the events of one tick (the initial list, a burst of watch events) into one set.
      const schedule = (): void => {
        if (flushQueued) return;
        flushQueued = true;
        queueMicrotask(flush);
      };
      const unsubscribe = informer.addEventHandler({ onAdd: schedule, onUpdate: schedule, onDelete: schedule });
      try {
        if (!informer.hasSynced()) {
          logger.info('Waiting for the pod informer to sync');
          await informer.waitForSync(signal);
        }
        synced = true;
        schedule();
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } catch (err) {
        if (!signal.aborted) throw err;
      } finally {
        unsubscribe();
        running = false;
      }
    },
  };
}
