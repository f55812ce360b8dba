import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { TimerHandle } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { FileSourceRun, PendingWork } from './file-source-run.js';

/** Upstream file_linux.go's watcher: fs.watch on the manifest directory, its events queued for the worker. */
export interface ManifestWatch {
  /** (Re)creates the watch when there is none or the directory (by identity) was replaced. */
  ensure(dirId: string): void;
  close(): void;
  /** The identity of the directory watched; undefined without a watch. */
  readonly dirId: string | undefined;
  /** At the end of the run: the pending event window is dropped and the watcher closed. */
  stop(): void;
}

export function createManifestWatch(run: FileSourceRun, pending: PendingWork, kick: () => void): ManifestWatch {
  const { path } = run;
  let watcher: FSWatcher | undefined;
  let watchedDirId: string | undefined;
  let eventWindow: TimerHandle | undefined;

  const onWatchEvent = (filename: string | Buffer | null): void => {
    const name = filename === null ? undefined : String(filename);
    // Watching a single file means watching its directory; ignore siblings.
    if (run.isSingleFile && name !== undefined && name !== basename(path)) return;
    if (!run.isSingleFile && name !== undefined && name.startsWith('.')) return;
    // Without a file name (or for the single-file path, where it is as cheap) do a full relist.
    if (name === undefined || run.isSingleFile || name.includes('/')) pending.full = true;
    else pending.names.add(name);
    // The first event is acted on at once, as upstream does with each inotify event (a manifest
    // renamed into the directory starts its pod without waiting). Events within a fixed window after
    // it (not reset by later ones) are coalesced into one more pass at the window's end, so a burst
    // of writes costs two passes; events arriving while a pass runs are handled right after it.
    if (eventWindow !== undefined) return;
    kick();
    eventWindow = run.clock.setTimeout(() => {
      eventWindow = undefined;
      kick();
    }, run.watchDebounceMs);
  };

  const close = (): void => {
    watcher?.close();
    watcher = undefined;
    watchedDirId = undefined;
  };

  return {
    // A watch on a deleted directory stays open but never fires again: hence the identity check.
    ensure(dirId) {
      if (!run.useWatch || run.signal.aborted || (watcher !== undefined && watchedDirId === dirId)) return;
      close();
      try {
        const target = run.isSingleFile ? dirname(path) : path;
        const w = watch(target, { persistent: false }, (_event, filename) => onWatchEvent(filename));
        w.on('error', (err) => {
          run.logger.warn('Manifest watch failed; relying on the periodic relist', { err: errorMessage(err) });
          w.close();
          if (watcher === w) close();
        });
        watcher = w;
        watchedDirId = dirId;
      } catch (err) {
        run.logger.debug('Could not watch manifest path', { err: errorMessage(err) });
      }
    },
    close,
    get dirId() {
      return watchedDirId;
    },
    stop() {
      if (eventWindow !== undefined) run.clock.clearTimeout(eventWindow);
      watcher?.close();
    },
  };
}
