import type { ObjectMeta, Pod } from '@kubelet-ts/api';
import {
  ConfigHashAnnotationKey,
  ConfigMirrorAnnotationKey,
  formatIssue,
  isAlreadyExists,
  isConflict,
  isMirrorPod,
  isNotFound,
  isStaticPod,
  parsePod,
  podFullName,
} from '@kubelet-ts/api';
import type { Backoff, Clock, Logger, Metrics } from '@kubelet-ts/common';
import { createBackoff, errorMessage, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { MirrorPodTranslator } from '@kubelet-ts/status-manager';
import { PodLifecycleError } from './errors.js';
import { podKey } from './internal/pod-manager.js';

/**
 * A Pod as {@link MirrorPodApi.create} sends it: no `status`, and none of the metadata the API
 * server assigns (`uid`, `resourceVersion`).
 */
export type NewMirrorPod = { [K in keyof Pod as K extends 'metadata' | 'status' ? never : K]: Pod[K] } & {
  metadata: { [K in keyof ObjectMeta as K extends 'uid' | 'resourceVersion' ? never : K]: ObjectMeta[K] };
};

/**
 * The calls to the API server (the kubelet adapts its API client). Errors carry `statusCode` and
 * `reason`, as kube-client's do (classified with @kubelet-ts/api's `isNotFound`, `isAlreadyExists`,
 * `isConflict`). Results are untrusted: what the manager reads of them is validated.
 */
export interface MirrorPodApi {
  /** `POST /api/v1/namespaces/<ns>/pods`: the created Pod. */
  create(pod: NewMirrorPod): Promise<unknown>;
  /** `GET /api/v1/namespaces/<ns>/pods/<name>`: the Pod. */
  get(namespace: string, name: string): Promise<unknown>;
  /**
   * `DELETE /api/v1/namespaces/<ns>/pods/<name>` with the body
   * `{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":…}}`.
   */
  delete(namespace: string, name: string, options: { gracePeriodSeconds: 0; uid: string }): Promise<unknown>;
}

/** What the manager reads of this node's Node object (a `Node` of @kubelet-ts/api fits). */
export interface MirrorPodNode {
  metadata: { uid?: string; deletionTimestamp?: string };
}

export interface MirrorPodManagerOptions {
  api: MirrorPodApi;
  /** The owner reference's `name`. */
  nodeName: string;
  /**
   * The Node as the node informer has it: its UID goes into the owner reference. Without a node
   * (not registered yet, or without a UID), or with a deletionTimestamp, no mirror pod is created.
   */
  getNode(): MirrorPodNode | undefined;
  /**
   * The static pods the kubelet has now, as upstream's pod manager has them: a mirror pod is made for
   * each and kept while it is listed; any other mirror pod of this node is an orphan and deleted; the
   * translation reads it on every call. Non-static pods are ignored. The kubelet passes
   * `lifecycle.getPods()` (the desired pods): `getActivePods()` leaves out a static pod that has
   * finished (Succeeded/Failed), whose mirror pod would then go as an orphan, and its final status
   * with it. Start `run` only once the pod sources are ready (`lifecycle.sourcesReady`), or every
   * mirror pod whose static pod has not been read yet is deleted.
   */
  staticPods(): readonly Pod[];
  /** Reconcile period. Default 1 s: a pass compares in memory; it calls the API only where something differs. */
  periodMs?: number;
  /** Back-off per static pod (by full name) after a failed create or delete. Default 1 s doubling to 60 s. */
  backoff?: Backoff;
  clock?: Clock;
  logger?: Logger;
  /** `kubelet_mirror_pods`. Default: none. */
  metrics?: Metrics;
}

/**
 * Upstream mirror_client.go, the static-pod block of Kubelet.SyncPod, deleteOrphanedMirrorPods and
 * the pod manager's mirror pod UID translation: every static pod has a mirror pod in the API server
 * (its copy, owned by the Node, annotated with the static pod's config hash), which is recreated
 * when outdated, and no mirror pod outlives its static pod. As a `MirrorPodTranslator` (the API
 * status sink's `mirrorPods`), a mirror pod counts as a static pod's only while its annotation is
 * that pod's config hash.
 */
export interface MirrorPodManager extends MirrorPodTranslator {
  /** The mirror pods of this node as the API pod source delivers them (`ApiPodSource.onMirrorPods`); a reconcile follows while running. */
  setMirrorPods(pods: readonly Pod[]): void;
  /** One pass now (tests, and after a static pod change); resolves once it is done. Failures are logged, never thrown. */
  reconcile(): Promise<void>;
  /** Reconciles at once, every `periodMs` and after every `setMirrorPods` until the signal aborts; resolves once the pass running then ended. */
  run(signal: AbortSignal): Promise<void>;
}

/** Upstream IsMirrorPodOf: same namespace and name, and the mirror's annotation is the static pod's config hash. */
function isMirrorPodOf(mirror: Pod, pod: Pod): boolean {
  if (mirror.metadata.name !== pod.metadata.name || mirror.metadata.namespace !== pod.metadata.namespace) return false;
  const hash = mirror.metadata.annotations?.[ConfigMirrorAnnotationKey];
  return hash !== undefined && hash === configHash(pod);
}

const configHash = (pod: Pod): string => pod.metadata.annotations?.[ConfigHashAnnotationKey] ?? '';

/** The mirror pod to create for a static pod (upstream CreateMirrorPod's copy). */
function newMirrorPod(pod: Pod, nodeName: string, nodeUID: string): NewMirrorPod {
  const { status: _status, metadata, ...rest } = structuredClone(pod);
  const { uid: _uid, resourceVersion: _resourceVersion, ...meta } = metadata;
  return {
    ...rest,
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...meta,
      annotations: { ...meta.annotations, [ConfigMirrorAnnotationKey]: configHash(pod) },
      // The NodeRestriction admission plugin requires a mirror pod to be owned by its node.
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUID, controller: true }],
    },
  };
}

/**
 * The mirror pod manager. It keeps the mirror pods it is given (and what it created or deleted since),
 * and on each pass compares them with the static pods; only a difference costs an API call.
 */
export function createMirrorPodManager(options: MirrorPodManagerOptions): MirrorPodManager {
  const { api, nodeName } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const periodMs = options.periodMs ?? 1_000;
  const backoff = options.backoff ?? createBackoff({ initialMs: 1_000, maxMs: 60_000, clock });
  // Upstream kubelet_mirror_pods.
  const mirrorPodCount = (options.metrics ?? noopMetrics).gauge({
    name: 'kubelet_mirror_pods',
    help: 'The number of mirror pods the kubelet will try to create (one per admitted static pod)',
  });
  /** The mirror pods by full name: the last set delivered, with what this manager created or deleted since. */
  let mirrors = new Map<string, Pod>();
  /** When the last create or delete for a full name failed (its back-off runs from then). */
  const failedAt = new Map<string, number>();
  let running = false;

  const setMirrors = (next: Map<string, Pod>): void => {
    mirrors = next;
    mirrorPodCount.set(mirrors.size);
  };
  // UIDs of static pods ever asked about (one per manifest version: a few, never pruned).
  const staticUIDsSeen = new Set<string>();
  const staticPodsByFullName = (): Map<string, Pod> =>
    new Map(
      options
        .staticPods()
        .filter(isStaticPod)
        .map((pod) => [podFullName(pod), pod]),
    );
  const inBackoff = (fullName: string): boolean => {
    const since = failedAt.get(fullName);
    return since !== undefined && backoff.isInBackoffSince(fullName, since);
  };
  const failed = (fullName: string): void => {
    backoff.next(fullName);
    failedAt.set(fullName, clock.now());
  };
  const succeeded = (fullName: string): void => {
    if (!failedAt.delete(fullName)) return;
    backoff.reset(fullName);
  };
  /** A response of the API server checked against the Pod schema: the pod, or what is wrong with it. */
  const parseApiPod = (raw: unknown, what: string): { pod?: Pod; error?: string } => {
    const parsed = parsePod(raw, what, { requireTypeMeta: false, applyDefaults: false, validate: false });
    return parsed.ok ? { pod: parsed.pod } : { error: parsed.errors.map(formatIssue).join('; ') };
  };
  /** The static pod's mirror pod is known at once (the API pod source delivers it a moment later): statuses can go to it. */
  const remember = (pod: Pod, mirror: Pod): void => {
    if (isMirrorPodOf(mirror, pod)) setMirrors(new Map(mirrors).set(podFullName(pod), mirror));
  };

  /**
   * DELETE with grace 0 and the UID as precondition, so that only that very pod goes. NotFound (gone
   * already) and Conflict (the name has a newer pod) count as done: this mirror pod is no more.
   */
  const deleteMirrorPod = async (mirror: Pod): Promise<void> => {
    const { namespace, name, uid } = mirror.metadata;
    try {
      await api.delete(namespace, name, { gracePeriodSeconds: 0, uid });
    } catch (err) {
      if (!isNotFound(err) && !isConflict(err)) throw err;
    }
    const fullName = podFullName(mirror);
    if (mirrors.get(fullName)?.metadata.uid === uid) {
      const next = new Map(mirrors);
      next.delete(fullName);
      setMirrors(next);
    }
  };

  /** Upstream CreateMirrorPod; AlreadyExists is fine when the pod there is this static pod's mirror pod. */
  const createMirrorPod = async (pod: Pod, nodeUID: string): Promise<void> => {
    const key = podKey(pod);
    let created: unknown;
    try {
      created = await api.create(newMirrorPod(pod, nodeName, nodeUID));
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const existing = parseApiPod(await api.get(pod.metadata.namespace, pod.metadata.name), `GET pods/${key}`);
      if (existing.pod === undefined) {
        throw new PodLifecycleError('MIRROR_POD_ERROR', `invalid pod from the API server: ${existing.error ?? ''}`, { cause: err });
      }
      if (!isMirrorPodOf(existing.pod, pod)) {
        throw new PodLifecycleError('MIRROR_POD_ERROR', `pod ${JSON.stringify(key)} exists and is not the mirror pod of the static pod`, {
          cause: err,
        });
      }
      remember(pod, existing.pod);
      return;
    }
    // A response that is not a pod leaves the new mirror pod to the API pod source.
    const parsed = parseApiPod(created, `POST pods/${key}`);
    if (parsed.pod !== undefined) remember(pod, parsed.pod);
  };

  /** The static-pod block of upstream SyncPod: recreate an outdated mirror pod, create a missing one. */
  const syncStaticPod = async (fullName: string, pod: Pod, node: MirrorPodNode | undefined): Promise<void> => {
    const log = { pod: podKey(pod), podUID: pod.metadata.uid };
    const mirror = mirrors.get(fullName);
    if (mirror !== undefined && mirror.metadata.deletionTimestamp === undefined && isMirrorPodOf(mirror, pod)) {
      succeeded(fullName);
      return;
    }
    if (inBackoff(fullName)) return;
    if (mirror !== undefined) {
      // The mirror pod is being deleted or is of another version of the static pod: it is recreated.
      logger.info('Trying to delete pod', { pod: podKey(mirror), podUID: mirror.metadata.uid });
      try {
        await deleteMirrorPod(mirror);
      } catch (err) {
        logger.error('Failed deleting mirror pod', { pod: podKey(mirror), podUID: mirror.metadata.uid, err: errorMessage(err) });
        failed(fullName);
        return;
      }
      logger.info('Deleted mirror pod because it is outdated', { pod: podKey(mirror), podUID: mirror.metadata.uid });
    }
    const nodeUID = node?.metadata.uid ?? '';
    if (node === undefined || nodeUID === '') {
      logger.debug('No need to create a mirror pod, since failed to get node info from the cluster', { ...log, node: nodeName });
      return;
    }
    if (node.metadata.deletionTimestamp !== undefined) {
      logger.debug('No need to create a mirror pod, since node has been removed from the cluster', { ...log, node: nodeName });
      return;
    }
    logger.info('Creating a mirror pod for static pod', log);
    try {
      await createMirrorPod(pod, nodeUID);
    } catch (err) {
      logger.error('Failed creating a mirror pod', { ...log, err: errorMessage(err) });
      failed(fullName);
      return;
    }
    succeeded(fullName);
  };

  /** Upstream deleteOrphanedMirrorPods: a mirror pod whose static pod the kubelet no longer has. */
  const deleteOrphan = async (fullName: string, mirror: Pod): Promise<void> => {
    if (inBackoff(fullName)) return;
    const log = { pod: podKey(mirror), podUID: mirror.metadata.uid };
    logger.info('Deleting a mirror pod', log);
    try {
      await deleteMirrorPod(mirror);
    } catch (err) {
      logger.error('Encountered error when deleting mirror pod', { ...log, err: errorMessage(err) });
      failed(fullName);
      return;
    }
    logger.info('Deleted orphaned mirror pod', log);
    succeeded(fullName);
  };

  /** One pass over every static pod and mirror pod; `wanted` is asked before each API call, so that a stopped loop stops. */
  const pass = async (wanted: () => boolean): Promise<void> => {
    try {
      const statics = staticPodsByFullName();
      const node = options.getNode();
      for (const [fullName, pod] of statics) if (wanted()) await syncStaticPod(fullName, pod, node);
      for (const [fullName, mirror] of [...mirrors]) if (wanted() && !statics.has(fullName)) await deleteOrphan(fullName, mirror);
      for (const fullName of [...failedAt.keys()]) if (!statics.has(fullName) && !mirrors.has(fullName)) succeeded(fullName);
    } catch (err) {
      logger.error('Mirror pod reconciliation failed', { err: errorMessage(err) });
    }
  };

  // One pass at a time; the requests made while one runs share the next. A pass the loop asked for
  // ends once the loop stopped; one asked for through `reconcile` runs to its end.
  let tail: Promise<void> = Promise.resolve();
  let queued: { explicit: boolean; done: Promise<void> } | undefined;
  const request = (explicit: boolean): Promise<void> => {
    if (queued !== undefined) {
      queued.explicit ||= explicit;
      return queued.done;
    }
    const entry = {
      explicit,
      done: tail.then(async () => {
        queued = undefined;
        await pass(() => running || entry.explicit);
      }),
    };
    queued = entry;
    tail = entry.done;
    return entry.done;
  };

  return {
    setMirrorPods(pods) {
      const byFullName = new Map<string, Pod>();
      for (const pod of pods) if (isMirrorPod(pod)) byFullName.set(podFullName(pod), pod);
      setMirrors(byFullName);
      if (running) void request(false);
    },
    reconcile: () => request(true),
    async run(signal) {
      if (running) throw new PodLifecycleError('MIRROR_POD_ERROR', 'the mirror pod manager is already running');
      if (signal.aborted) return;
      running = true;
      const ticker = clock.setInterval(() => void request(false), periodMs);
      void request(false);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(ticker);
      running = false;
      await tail;
    },
    mirrorPodUIDOf(podUID) {
      const pod = options.staticPods().find((p) => p.metadata.uid === podUID && isStaticPod(p));
      if (pod !== undefined) staticUIDsSeen.add(podUID);
      // A static pod already gone from the pod manager still has a status for a while: it has no mirror
      // (its API name is the deleted mirror's; asking for it would only be refused), not an API pod of its own.
      if (pod === undefined) return staticUIDsSeen.has(podUID) ? '' : undefined;
      const mirror = mirrors.get(podFullName(pod));
      return mirror !== undefined && isMirrorPodOf(mirror, pod) ? mirror.metadata.uid : '';
    },
    translatePodUID(uid) {
      for (const [fullName, mirror] of mirrors) {
        if (mirror.metadata.uid !== uid) continue;
        const pod = staticPodsByFullName().get(fullName);
        return pod !== undefined && isMirrorPodOf(mirror, pod) ? pod.metadata.uid : uid;
      }
      return uid;
    },
  };
}
