import { dirname, join } from 'node:path';
import { errorMessage } from '@kubelet-ts/common';
import type { FileSourceRun } from './file-source-run.js';
import type { FileStat } from './manifest-fs.js';
import { identity } from './manifest-fs.js';

/** The manifest files found, with the identity of the directory that holds them. */
export interface ManifestListing {
  files: Array<[string, FileStat]>;
  dirId: string;
}

/** Stats a directory entry: undefined when it is gone, not a regular file, or a dangling symlink. */
export async function statEntry(run: FileSourceRun, file: string): Promise<FileStat | undefined> {
  try {
    const entry = await run.fs.stat(file);
    if (entry.isFile()) return entry;
    if (entry.isDirectory()) run.logger.debug('Not recursing into manifest path', { file });
    else run.logger.warn('Manifest path is not a file or directory', { file });
  } catch (err) {
    // Removed between readdir and stat, or a dangling symlink.
    run.logger.debug("Can't get metadata for manifest file", { file, err: errorMessage(err) });
  }
  return undefined;
}

/**
 * Upstream listConfig / extractFromDir: the path itself when it is a file, else its non-dot regular
 * files (not recursively) in name order; 'missing' when the path does not exist. Sets `isSingleFile`.
 */
export async function listManifests(run: FileSourceRun): Promise<ManifestListing | 'missing'> {
  const { path } = run;
  let info;
  try {
    info = await run.fs.stat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw err;
  }
  run.isSingleFile = info.isFile();
  if (run.isSingleFile) return { files: [[path, info]], dirId: identity(await run.fs.stat(dirname(path))) };
  if (!info.isDirectory()) throw new Error(`path ${path} is not a directory or file`);
  const names = (await run.fs.readdir(path)).filter((n) => !n.startsWith('.')).sort();
  const out: Array<[string, FileStat]> = [];
  for (const name of names) {
    const file = join(path, name);
    const entry = await statEntry(run, file);
    if (entry !== undefined) out.push([file, entry]);
  }
  return { files: out, dirId: identity(info) };
}
