import type { Clock, Logger } from '@kubelet-ts/common';
import type { EmitSourceEvent, StaticPodObjectReference } from '../types.js';
import type { ManifestFs } from './manifest-fs.js';

/** What one run of the file source works with (upstream: the fields of sourceFile). */
export interface FileSourceRun {
  /** Without trailing slashes. */
  readonly path: string;
  readonly nodeName: string;
  readonly fs: ManifestFs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly checkFrequencyMs: number;
  readonly maxFileBytes: number;
  readonly watchDebounceMs: number;
  readonly useWatch: boolean;
  readonly allowedObjectReferences: readonly StaticPodObjectReference[];
  readonly emit: EmitSourceEvent;
  readonly signal: AbortSignal;
  /** The path is a single manifest (as of the last listing): its directory is watched, siblings ignored. */
  isSingleFile: boolean;
}

/** Work queued for the worker: a full relist, and/or file names from watch events. */
export interface PendingWork {
  full: boolean;
  readonly names: Set<string>;
}
