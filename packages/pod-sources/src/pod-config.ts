import type { Pod } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { PodSourceError } from './errors.js';
import { AsyncQueue } from './internal/async-queue.js';
import { createPodStorage } from './internal/pod-storage.js';
import type { PodSource, PodUpdate, SourceError, StaticPodObjectReference } from './types.js';

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
  /**
   * Called with every pod that is not static of every source event, as the source delivered it, and
   * when (upstream's podStartupSLIObserver: the pod startup latency tracker's observedPodOnWatch).
   */
  observePod?: (pod: Pod, whenMs: number) => void;
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
  const storage = createPodStorage({
    clock,
    logger,
    push: (update) => queue.push(update),
    reportErrors,
    ...(options.observePod !== undefined ? { observePod: options.observePod } : {}),
  });
  const seenAllSources = (): boolean => [...names].every((n) => storage.seen(n));

  const running = options.sources.map(async (source) => {
    try {
      await source.run(
        (event) => {
          if (controller.signal.aborted) return;
          try {
            if (event.kind === 'error') reportErrors(event.errors);
            else if (storage.merge(source.name, event)) {
              logger.info('Pod source seen', { source: source.name });
              if (seenAllSources()) resolveSeen();
            }
          } catch (err) {
            logger.error('Failed to merge pod source event', { source: source.name, err: errorMessage(err) });
          }
        },
        controller.signal,
        { allowedObjectReferences: [...(options.allowedObjectReferences ?? [])] },
      );
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
    seenAllSources,
    allSourcesSeen,
    mergedState: () => storage.mergedState(),
    close,
  };
}
