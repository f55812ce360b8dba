import { join } from 'node:path';
import { errorMessage } from '@kubelet-ts/common';
import type { FileSourceRun, PendingWork } from './file-source-run.js';
import type { ManifestCache } from './manifest-cache.js';
import { identity } from './manifest-fs.js';
import type { ManifestListing } from './manifest-lister.js';
import { listManifests, statEntry } from './manifest-lister.js';
import type { ManifestWatch } from './manifest-watch.js';

/** One pass at a time over the pending work: full relists, or the files watch events named. */
export interface ManifestWorker {
  /** Starts a pass unless one runs (it picks up what was queued meanwhile). */
  kick(): void;
  /** The pass running, if any. */
  readonly running: Promise<void> | undefined;
}

export interface ManifestWorkerParts {
  pending: PendingWork;
  cache: ManifestCache;
  watch: ManifestWatch;
}

export function createManifestWorker(run: FileSourceRun, parts: ManifestWorkerParts): ManifestWorker {
  const { pending, cache } = parts;
  const { logger, signal } = run;
  let running: Promise<void> | undefined;
  let missingLogged = false;

  const relist = async (): Promise<void> => {
    let listed: ManifestListing | 'missing';
    try {
      listed = await listManifests(run);
    } catch (err) {
      logger.error('Unable to read manifest path', { err: errorMessage(err) });
      return;
    }
    if (signal.aborted) return;
    if (listed === 'missing') {
      // Not fatal, as upstream: report an empty set (so the source counts as seen) and keep checking.
      if (!missingLogged) logger.info('Manifest path does not exist, will keep checking', { checkFrequencyMs: run.checkFrequencyMs });
      missingLogged = true;
      parts.watch.close();
      cache.clear();
      run.emit({ kind: 'set', pods: [] });
      return;
    }
    missingLogged = false;
    parts.watch.ensure(listed.dirId);
    cache.retain(new Set(listed.files.map(([file]) => file)));
    for (const [file, info] of listed.files) await cache.refresh(file, info);
    if (signal.aborted) return;
    cache.publish();
  };

  /**
   * Re-checks only the files named by watch events. Safe only while the watched directory is
   * still the one we list; anything else (replaced or missing directory) takes a full relist.
   */
  const refreshNamed = async (names: string[]): Promise<void> => {
    let dirInfo;
    try {
      dirInfo = await run.fs.stat(run.path);
    } catch {
      return relist();
    }
    if (!dirInfo.isDirectory() || identity(dirInfo) !== parts.watch.dirId) return relist();
    for (const name of names) {
      const file = join(run.path, name);
      const info = await statEntry(run, file);
      if (info === undefined) cache.delete(file);
      else await cache.refresh(file, info);
    }
    if (signal.aborted) return;
    cache.publish();
  };

  return {
    kick() {
      if (signal.aborted || running !== undefined) return;
      running = (async () => {
        while (!signal.aborted && (pending.full || pending.names.size > 0)) {
          if (pending.full) {
            pending.full = false;
            pending.names.clear(); // the relist covers them
            await relist();
          } else {
            const names = [...pending.names];
            pending.names.clear();
            await refreshNamed(names);
          }
        }
      })().finally(() => {
        running = undefined;
      });
    },
    get running() {
      return running;
    },
  };
}
