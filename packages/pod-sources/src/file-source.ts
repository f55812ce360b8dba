import type { FSWatcher } from 'node:fs';
import { watch } from 'node:fs';
import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { podFullName } from '@kubelet-ts/api';
import type { Clock, Logger, TimerHandle } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import { formatSourceError } from './errors.js';
import { jsonEqual } from './internal/json.js';
import { parseManifest } from './internal/manifest.js';
import { decodeStaticPod } from './static-pod.js';
import type { EmitSourceEvent, PodSource, SourceContext, SourceError, StaticPodObjectReference } from './types.js';

/** Upstream reads manifests of any size; we cap them (upstream's HTTP limit, maxConfigLength, is 10 MB). */
export const DEFAULT_MAX_MANIFEST_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CHECK_FREQUENCY_MS = 20_000;
/** Upstream acts on each inotify event at once; a short window still coalesces a burst of writes. */
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
  /** Window after a first fs.watch event in which further events are coalesced into one pass. Default 10 ms. */
  watchDebounceMs?: number;
  /** Disable fs.watch and rely on the periodic relist only. Default true (watch). */
  watch?: boolean;
  /** API object references static pods may make (kubelet-ts extension); default: what the pod config mux passes, else none. */
  allowedObjectReferences?: readonly StaticPodObjectReference[];
  clock?: Clock;
  logger?: Logger;
}

interface FileState {
  /** The last valid pod from this file: kept while the file is invalid (deliberate deviation from upstream). */
  lastValid?: Pod;
  /** The errors of the file's current content (read, parse, decode), cached with `stamp`. */
  contentErrors: SourceError[];
  /** The errors last reported for this file (content + duplicates), compared to report each distinct problem once. */
  reported: SourceError[];
  /** What `stat` said when the content was read; unset after a failed read, so the file is read again. */
  stamp?: string;
}

/** File-system calls of the file source; injectable so tests can count what is read. */
export interface ManifestFs {
  stat(path: string): Promise<FileStat>;
  readdir(path: string): Promise<string[]>;
  /**
   * Reads a manifest up to `maxBytes`, with the stamp of the opened file taken before reading;
   * `stamp` is undefined when it cannot be trusted yet (the file was modified a moment ago).
   */
  readManifest(file: string, maxBytes: number): Promise<{ text: string; stamp: string | undefined }>;
}

type FileStat = { isFile(): boolean; isDirectory(): boolean; dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number; birthtimeMs: number };

/** The real file system (tests wrap it to count calls). */
export const nodeManifestFs: ManifestFs = { stat: (p) => stat(p), readdir: (p) => readdir(p), readManifest: readLimited };

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
  const windowMs = options.watchDebounceMs ?? DEFAULT_WATCH_DEBOUNCE_MS;
  const useWatch = options.watch ?? true;

  return {
    name: 'file',
    async run(emit: EmitSourceEvent, signal: AbortSignal, context?: SourceContext): Promise<void> {
      if (signal.aborted) return;
      const allowedObjectReferences = options.allowedObjectReferences ?? context?.allowedObjectReferences ?? [];
      const files = new Map<string, FileState>();
      let watcher: FSWatcher | undefined;
      let watchedDirId: string | undefined;
      let isSingleFile = false;
      let eventWindow: TimerHandle | undefined;
      let running: Promise<void> | undefined;
      /** Work queued for the worker: a full relist, and/or file names from watch events. */
      let fullPending = false;
      const pendingNames = new Set<string>();
      let missingLogged = false;

      const report = (file: string, state: FileState, errors: SourceError[]): void => {
        if (jsonEqual(state.reported, errors)) return;
        state.reported = errors;
        if (errors.length === 0) return;
        for (const e of errors) {
          logger.error('Invalid static pod manifest', { file, err: formatSourceError(e), keptLastValid: state.lastValid !== undefined });
        }
        emit({ kind: 'error', errors });
      };

      /** Reads and decodes one file unless its stat stamp is the one already read; remembers the pod when valid. */
      const refresh = async (file: string, info: FileStat): Promise<void> => {
        let state = files.get(file);
        if (state === undefined) {
          state = { contentErrors: [], reported: [] };
          files.set(file, state);
        }
        if (state.stamp !== undefined && state.stamp === stampOf(info)) return;
        const fail = (path: string, reason: string): void => {
          state.contentErrors = [{ source: 'file', file, path, reason }];
        };
        let read;
        try {
          read = await fs.readManifest(file, maxFileBytes);
        } catch (err) {
          state.stamp = undefined;
          fail('', errorMessage(err));
          return;
        }
        state.stamp = read.stamp;
        const parsed = parseManifest(read.text, file);
        if (!parsed.ok) return fail(parsed.path, parsed.reason);
        const decoded = decodeStaticPod(parsed.value, { source: 'file', location: file, nodeName: options.nodeName }, { allowedObjectReferences });
        if (!decoded.ok) {
          state.contentErrors = decoded.errors;
          return;
        }
        state.lastValid = decoded.pod;
        state.contentErrors = [];
      };

      /** Emits the full set from what is known of every file, and reports what changed in the errors. */
      const publish = (): void => {
        // One pod per full name within this source: the first file (in name order) wins, like
        // upstream's filterInvalidPods; later ones are reported.
        const pods: Pod[] = [];
        const owners = new Map<string, string>();
        for (const file of [...files.keys()].sort()) {
          const state = files.get(file);
          if (state === undefined) continue;
          const errors = [...state.contentErrors];
          const pod = state.lastValid;
          if (pod !== undefined) {
            const name = podFullName(pod);
            const owner = owners.get(name);
            if (owner === undefined) {
              owners.set(name, file);
              pods.push(pod);
            } else {
              const reason = `Duplicate value ${JSON.stringify(pod.metadata.name)}: pod already defined by ${owner}`;
              errors.push({ source: 'file', file, path: 'metadata.name', reason });
            }
          }
          report(file, state, errors);
        }
        emit({ kind: 'set', pods });
      };

      const listFiles = async (): Promise<{ files: Array<[string, FileStat]>; dirId: string } | 'missing'> => {
        let info;
        try {
          info = await fs.stat(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
          throw err;
        }
        isSingleFile = info.isFile();
        if (isSingleFile) return { files: [[path, info]], dirId: identity(await fs.stat(dirname(path))) };
        if (!info.isDirectory()) throw new Error(`path ${path} is not a directory or file`);
        const names = (await fs.readdir(path)).filter((n) => !n.startsWith('.')).sort();
        const out: Array<[string, FileStat]> = [];
        for (const name of names) {
          const file = join(path, name);
          const entry = await statEntry(file);
          if (entry !== undefined) out.push([file, entry]);
        }
        return { files: out, dirId: identity(info) };
      };

      /** Stats a directory entry: undefined when it is gone, not a regular file, or a dangling symlink. */
      const statEntry = async (file: string): Promise<FileStat | undefined> => {
        try {
          const entry = await fs.stat(file);
          if (entry.isFile()) return entry;
          if (entry.isDirectory()) logger.debug('Not recursing into manifest path', { file });
          else logger.warn('Manifest path is not a file or directory', { file });
        } catch (err) {
          // Removed between readdir and stat, or a dangling symlink.
          logger.debug("Can't get metadata for manifest file", { file, err: errorMessage(err) });
        }
        return undefined;
      };

      const relist = async (): Promise<void> => {
        let listed: { files: Array<[string, FileStat]>; dirId: string } | 'missing';
        try {
          listed = await listFiles();
        } catch (err) {
          logger.error('Unable to read manifest path', { err: errorMessage(err) });
          return;
        }
        if (signal.aborted) return;
        if (listed === 'missing') {
          // Not fatal, as upstream: report an empty set (so the source counts as seen) and keep checking.
          if (!missingLogged) logger.info('Manifest path does not exist, will keep checking', { checkFrequencyMs });
          missingLogged = true;
          closeWatch();
          files.clear();
          emit({ kind: 'set', pods: [] });
          return;
        }
        missingLogged = false;
        ensureWatch(listed.dirId);
        const present = new Set(listed.files.map(([file]) => file));
        for (const file of files.keys()) if (!present.has(file)) files.delete(file);
        for (const [file, info] of listed.files) await refresh(file, info);
        if (signal.aborted) return;
        publish();
      };

      /**
       * Re-checks only the files named by watch events. Safe only while the watched directory is
       * still the one we list; anything else (replaced or missing directory) takes a full relist.
       */
      const refreshNamed = async (names: string[]): Promise<void> => {
        let dirInfo;
        try {
          dirInfo = await fs.stat(path);
        } catch {
          return relist();
        }
        if (!dirInfo.isDirectory() || identity(dirInfo) !== watchedDirId) return relist();
        for (const name of names) {
          const file = join(path, name);
          const info = await statEntry(file);
          if (info === undefined) files.delete(file);
          else await refresh(file, info);
        }
        if (signal.aborted) return;
        publish();
      };

      const kick = (): void => {
        if (signal.aborted || running !== undefined) return;
        running = (async () => {
          while (!signal.aborted && (fullPending || pendingNames.size > 0)) {
            if (fullPending) {
              fullPending = false;
              pendingNames.clear(); // the relist covers them
              await relist();
            } else {
              const names = [...pendingNames];
              pendingNames.clear();
              await refreshNamed(names);
            }
          }
        })().finally(() => {
          running = undefined;
        });
      };

      const relistSoon = (): void => {
        fullPending = true;
        kick();
      };

      const onWatchEvent = (filename: string | Buffer | null): void => {
        const name = filename === null ? undefined : String(filename);
        // Watching a single file means watching its directory; ignore siblings.
        if (isSingleFile && name !== undefined && name !== basename(path)) return;
        if (!isSingleFile && name !== undefined && name.startsWith('.')) return;
        // Without a file name (or for the single-file path, where it is as cheap) do a full relist.
        if (name === undefined || isSingleFile || name.includes('/')) fullPending = true;
        else pendingNames.add(name);
        // A fixed window from the first event (not reset by later ones): a single write is handled
        // within `windowMs`, a burst is coalesced into few passes; events arriving while a pass runs
        // are handled right after it.
        if (eventWindow !== undefined) return;
        eventWindow = clock.setTimeout(() => {
          eventWindow = undefined;
          kick();
        }, windowMs);
      };

      const closeWatch = (): void => {
        watcher?.close();
        watcher = undefined;
        watchedDirId = undefined;
      };

      // (Re)creates the watch when there is none or the directory was replaced: a watch on a deleted
      // directory stays open but never fires again.
      const ensureWatch = (dirId: string): void => {
        if (!useWatch || signal.aborted || (watcher !== undefined && watchedDirId === dirId)) return;
        closeWatch();
        try {
          const target = isSingleFile ? dirname(path) : path;
          const w = watch(target, { persistent: false }, (_event, filename) => onWatchEvent(filename));
          w.on('error', (err) => {
            logger.warn('Manifest watch failed; relying on the periodic relist', { err: errorMessage(err) });
            w.close();
            if (watcher === w) closeWatch();
          });
          watcher = w;
          watchedDirId = dirId;
        } catch (err) {
          logger.debug('Could not watch manifest path', { err: errorMessage(err) });
        }
      };

      const interval = clock.setInterval(relistSoon, checkFrequencyMs);
      relistSoon();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(interval);
      if (eventWindow !== undefined) clock.clearTimeout(eventWindow);
      watcher?.close();
      await running;
    },
  };
}

/** Identifies a directory across replacement: inode numbers are reused at once, birth times are not. */
function identity(info: { dev: number; ino: number; birthtimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.birthtimeMs}`;
}

/** What tells a changed file: any write changes mtime and ctime; a replacement (rename) changes the inode. */
function stampOf(info: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/** Timestamps are 1 s on some file systems (2 s on FAT); above that a stamp is trusted. */
const RACY_STAMP_MS = 2_000;

async function readLimited(file: string, maxBytes: number): Promise<{ text: string; stamp: string | undefined }> {
  const handle = await open(file, 'r');
  try {
    // Stamped before reading: a write during the read changes the stamp, so the next check reads again.
    const info = await handle.stat();
    if (info.size > maxBytes) throw new Error(`manifest is ${info.size} bytes, over the limit of ${maxBytes} bytes`);
    // Read until EOF rather than trusting the size: the file may be growing while we read it.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new Error(`manifest is over the limit of ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    const text = Buffer.concat(chunks, total).toString('utf8');
    // "Racy" stamps, as git's index: on a file system with coarse timestamps, a same-size rewrite
    // within the same tick as this read would leave the stamp unchanged. A file modified in the last
    // RACY_STAMP_MS is not cached (read again on the next check). Wall time, as the file's mtime is.
    const racy = Date.now() - info.mtimeMs < RACY_STAMP_MS;
    return { text, stamp: racy ? undefined : stampOf(info) };
  } finally {
    await handle.close();
  }
}
