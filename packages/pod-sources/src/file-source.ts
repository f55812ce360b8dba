import type { Clock, Logger } from '@kubelet-ts/common';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import type { FileSourceRun, PendingWork } from './internal/file-source-run.js';
import { createManifestCache } from './internal/manifest-cache.js';
import type { ManifestFs } from './internal/manifest-fs.js';
import { nodeManifestFs } from './internal/manifest-fs.js';
import { createManifestWatch } from './internal/manifest-watch.js';
import { createManifestWorker } from './internal/manifest-worker.js';
import type { EmitSourceEvent, PodSource, SourceContext, StaticPodObjectReference } from './types.js';

export { nodeManifestFs };
export type { ManifestFs };

/** Upstream reads manifests of any size; we cap them (upstream's HTTP limit, maxConfigLength, is 10 MB). */
export const DEFAULT_MAX_MANIFEST_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CHECK_FREQUENCY_MS = 20_000;
/** The first watch event is acted on at once (as upstream does); later ones within this window wait for its end, coalesced. */
export const DEFAULT_WATCH_DEBOUNCE_MS = 10;

export interface FileSourceOptions {
  /** A directory of manifests (`--pod-manifest-path`, `staticPodPath`) or a single manifest file. */
  path: string;
  /** The node name: static pods are named `<name>-<node>` and bound to it. */
  nodeName: string;
  /** Full relist period (`fileCheckFrequency`); also the retry period when the path is missing. Default 20 s. */
  checkFrequencyMs?: number;
  /** Files larger than this are rejected with a source error. Default 10 MiB. */
  maxFileBytes?: number;
  /** Window after a first fs.watch event (handled at once) in which further events are coalesced into one more pass. Default 10 ms. */
  watchDebounceMs?: number;
  /** Disable fs.watch and rely on the periodic relist only. Default true (watch). */
  watch?: boolean;
  /** API object references static pods may make (kubelet-ts extension); default: what the pod config mux passes, else none. */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
  clock?: Clock;
  logger?: Logger;
}

/**
 * The static pod file source (upstream pkg/kubelet/config/file.go + file_linux.go): reads every
 * non-dot file of a directory (not recursively) or one file, one Pod per file, and emits the full
 * set of pods after each change. Relists every `checkFrequencyMs` and on directory-level watch
 * events; a watch event naming a file re-checks that file only. Either way a file is read and
 * parsed again only when its (inode, size, mtime, ctime) changed: the result is the same as
 * upstream's re-read of everything.
 */
export function createFileSource(options: FileSourceOptions): PodSource {
  return createFileSourceWithFs(options, nodeManifestFs);
}

/** `createFileSource` with the file-system calls injected (tests; not exported from the package). */
export function createFileSourceWithFs(options: FileSourceOptions, fs: ManifestFs): PodSource {
  const path = options.path.replace(/\/+$/, '') || '/';
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ source: 'file', path });
  const checkFrequencyMs = options.checkFrequencyMs ?? DEFAULT_CHECK_FREQUENCY_MS;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  const watchDebounceMs = options.watchDebounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS;
  const useWatch = options.watch ?? true;

  return {
    name: 'file',
    async run(emit: EmitSourceEvent, signal: AbortSignal, context?: SourceContext): Promise<void> {
      if (signal.aborted) return;
      const run: FileSourceRun = {
        path,
        nodeName: options.nodeName,
        fs,
        clock,
        logger,
        checkFrequencyMs,
        maxFileBytes,
        watchDebounceMs,
        useWatch,
        allowedObjectReferences: options.allowedObjectReferences ?? context?.allowedObjectReferences ?? [],
        emit,
        signal,
        isSingleFile: false,
      };
      const pending: PendingWork = { full: false, names: new Set() };
      const cache = createManifestCache(run);
      const watch = createManifestWatch(run, pending, () => worker.kick());
      const worker = createManifestWorker(run, { pending, cache, watch });
      const relistSoon = (): void => {
        pending.full = true;
        worker.kick();
      };

      const interval = clock.setInterval(relistSoon, checkFrequencyMs);
      relistSoon();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(interval);
      watch.stop();
      await worker.running;
    },
  };
}
