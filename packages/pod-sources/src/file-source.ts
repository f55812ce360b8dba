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
import type { StaticPodObjectReference } from './static-pod.js';
import type { EmitSourceEvent, PodSource, SourceContext, SourceError } from './types.js';

/** Upstream reads manifests of any size; we cap them (upstream's HTTP limit, maxConfigLength, is 10 MB). */
export const DEFAULT_MAX_MANIFEST_BYTES = 10 * 1024 * 1024;
export const DEFAULT_CHECK_FREQUENCY_MS = 20_000;

export interface FileSourceOptions {
  /** A directory of manifests (`--pod-manifest-path`, `staticPodPath`) or a single manifest file. */
  path: string;
  /** The node name: static pods are named `<name>-<node>` and bound to it. */
  nodeName: string;
  /** Full relist period (`fileCheckFrequency`); also the retry period when the path is missing. Default 20 s. */
  checkFrequencyMs?: number;
  /** Files larger than this are rejected with a source error. Default 10 MiB. */
  maxFileBytes?: number;
  /** Delay that coalesces a burst of fs.watch events into one relist. Default 100 ms. */
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
  /** The errors of the current content, compared to report each distinct problem once. */
  errors: SourceError[];
}

/**
 * The static pod file source (upstream pkg/kubelet/config/file.go + file_linux.go): reads every
 * non-dot file of a directory (not recursively) or one file, one Pod per file, and emits the full
 * set of pods after each relist. Relists on fs.watch events and every `checkFrequencyMs`.
 */
export function createFileSource(options: FileSourceOptions): PodSource {
  const path = options.path.replace(/\/+$/, '') || '/';
  const clock = options.clock ?? systemClock;
  const logger = (options.logger ?? noopLogger).child({ source: 'file', path });
  const checkFrequencyMs = options.checkFrequencyMs ?? DEFAULT_CHECK_FREQUENCY_MS;
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_MANIFEST_BYTES;
  const debounceMs = options.watchDebounceMs ?? 100;
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
      let debounce: TimerHandle | undefined;
      let running: Promise<void> | undefined;
      let again = false;
      let missingLogged = false;

      const report = (file: string, errors: SourceError[]): void => {
        const state = files.get(file);
        if (state === undefined || jsonEqual(state.errors, errors)) return;
        state.errors = errors;
        if (errors.length === 0) return;
        for (const e of errors) {
          logger.error('Invalid static pod manifest', { file, err: formatSourceError(e), keptLastValid: state.lastValid !== undefined });
        }
        emit({ kind: 'error', errors });
      };

      /** Reads and decodes one file; remembers the pod when valid and returns the file's errors. */
      const readOne = async (file: string): Promise<SourceError[]> => {
        const state = files.get(file) ?? { errors: [] };
        files.set(file, state);
        const fail = (path: string, reason: string): SourceError[] => [{ source: 'file', file, path, reason }];
        let text: string;
        try {
          text = await readLimited(file, maxFileBytes);
        } catch (err) {
          return fail('', errorMessage(err));
        }
        const parsed = parseManifest(text);
        if (!parsed.ok) return fail(parsed.path, parsed.reason);
        const decoded = decodeStaticPod(parsed.value, { source: 'file', location: file, nodeName: options.nodeName }, { allowedObjectReferences });
        if (!decoded.ok) return decoded.errors;
        state.lastValid = decoded.pod;
        return [];
      };

      const listFiles = async (): Promise<{ files: string[]; dirId: string } | 'missing'> => {
        let info;
        try {
          info = await stat(path);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
          throw err;
        }
        isSingleFile = info.isFile();
        if (isSingleFile) return { files: [path], dirId: identity(await stat(dirname(path))) };
        if (!info.isDirectory()) throw new Error(`path ${path} is not a directory or file`);
        const names = (await readdir(path)).filter((n) => !n.startsWith('.')).sort();
        const out: string[] = [];
        for (const name of names) {
          const file = join(path, name);
          try {
            const entry = await stat(file);
            if (entry.isFile()) out.push(file);
            else if (entry.isDirectory()) logger.debug('Not recursing into manifest path', { file });
            else logger.warn('Manifest path is not a file or directory', { file });
          } catch (err) {
            // Removed between readdir and stat, or a dangling symlink.
            logger.debug("Can't get metadata for manifest file", { file, err: errorMessage(err) });
          }
        }
        return { files: out, dirId: identity(info) };
      };

      const relist = async (): Promise<void> => {
        let listed: { files: string[]; dirId: string } | 'missing';
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
        const list = listed.files;
        const present = new Set(list);
        for (const file of files.keys()) if (!present.has(file)) files.delete(file);
        const results = new Map<string, SourceError[]>();
        for (const file of list) results.set(file, await readOne(file));
        if (signal.aborted) return;

        // One pod per full name within this source: the first file (in name order) wins, like
        // upstream's filterInvalidPods; later ones are reported.
        const pods: Pod[] = [];
        const owners = new Map<string, string>();
        for (const file of list) {
          const pod = files.get(file)?.lastValid;
          if (pod === undefined) continue;
          const name = podFullName(pod);
          const owner = owners.get(name);
          if (owner !== undefined) {
            const reason = `Duplicate value ${JSON.stringify(pod.metadata.name)}: pod already defined by ${owner}`;
            results.set(file, [...(results.get(file) ?? []), { source: 'file', file, path: 'metadata.name', reason }]);
            continue;
          }
          owners.set(name, file);
          pods.push(pod);
        }
        for (const [file, errors] of results) report(file, errors);
        emit({ kind: 'set', pods });
      };

      const trigger = (): void => {
        if (signal.aborted) return;
        if (running !== undefined) {
          again = true;
          return;
        }
        running = (async () => {
          do {
            again = false;
            await relist();
          } while (again && !signal.aborted);
        })().finally(() => {
          running = undefined;
        });
      };

      const onWatchEvent = (filename: string | Buffer | null): void => {
        const name = filename === null ? undefined : String(filename);
        // Watching a single file means watching its directory; ignore siblings.
        if (isSingleFile && name !== undefined && name !== basename(path)) return;
        if (!isSingleFile && name !== undefined && name.startsWith('.')) return;
        if (debounce !== undefined) clock.clearTimeout(debounce);
        debounce = clock.setTimeout(() => {
          debounce = undefined;
          trigger();
        }, debounceMs);
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

      const interval = clock.setInterval(trigger, checkFrequencyMs);
      trigger();
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      clock.clearInterval(interval);
      if (debounce !== undefined) clock.clearTimeout(debounce);
      watcher?.close();
      await running;
    },
  };
}

/** Identifies a directory across replacement: inode numbers are reused at once, birth times are not. */
function identity(info: { dev: number; ino: number; birthtimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.birthtimeMs}`;
}

async function readLimited(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, 'r');
  try {
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
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}
