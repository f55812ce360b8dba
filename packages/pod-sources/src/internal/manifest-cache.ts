import type { Pod } from '@kubelet-ts/api';
import { podFullName } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import { formatSourceError } from '../errors.js';
import { decodeStaticPod } from '../static-pod.js';
import type { SourceError } from '../types.js';
import type { FileSourceRun } from './file-source-run.js';
import { jsonEqual } from './json.js';
import { parseManifest } from './manifest.js';
import type { FileStat } from './manifest-fs.js';
import { stampOf } from './manifest-fs.js';

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

/** What the file source knows of each manifest file, by path, and the set of pods it makes. */
export interface ManifestCache {
  /** Reads and decodes one file unless its stat stamp is the one already read; remembers the pod when valid. */
  refresh(file: string, info: FileStat): Promise<void>;
  delete(file: string): void;
  clear(): void;
  /** Forgets the files not in `present`. */
  retain(present: ReadonlySet<string>): void;
  /** Emits the full set from what is known of every file, and reports what changed in the errors. */
  publish(): void;
}

export function createManifestCache(run: FileSourceRun): ManifestCache {
  const files = new Map<string, FileState>();

  const report = (file: string, state: FileState, errors: SourceError[]): void => {
    if (jsonEqual(state.reported, errors)) return;
    state.reported = errors;
    if (errors.length === 0) return;
    for (const e of errors) {
      run.logger.error('Invalid static pod manifest', { file, err: formatSourceError(e), keptLastValid: state.lastValid !== undefined });
    }
    run.emit({ kind: 'error', errors });
  };

  return {
    async refresh(file, info) {
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
        read = await run.fs.readManifest(file, run.maxFileBytes);
      } catch (err) {
        state.stamp = undefined;
        fail('', errorMessage(err));
        return;
      }
      state.stamp = read.stamp;
      const parsed = parseManifest(read.text, file);
      if (!parsed.ok) return fail(parsed.path, parsed.reason);
      const decoded = decodeStaticPod(
        parsed.value,
        { source: 'file', location: file, nodeName: run.nodeName },
        { allowedObjectReferences: run.allowedObjectReferences },
      );
      if (!decoded.ok) {
        state.contentErrors = decoded.errors;
        return;
      }
      state.lastValid = decoded.pod;
      state.contentErrors = [];
    },
    delete: (file) => files.delete(file),
    clear: () => files.clear(),
    retain(present) {
      for (const file of files.keys()) if (!present.has(file)) files.delete(file);
    },
    publish() {
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
      run.emit({ kind: 'set', pods });
    },
  };
}
