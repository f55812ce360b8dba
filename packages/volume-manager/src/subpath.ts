import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { lstat, mkdir, open, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { VolumeError } from './errors.js';

// Linux O_PATH (not in fs.constants): an fd that pins a path without opening the file itself.
const O_PATH = 0o10000000;

const escape = (message: string): VolumeError => new VolumeError('PATH_ESCAPE', message);

/** Rejects subPaths that are absolute or contain `..` (upstream validation of volumeMounts[].subPath). */
export function validateSubPath(subPath: string): string[] {
  if (isAbsolute(subPath)) throw escape(`subPath ${JSON.stringify(subPath)} must be a relative path`);
  const parts = subPath.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw escape(`subPath ${JSON.stringify(subPath)} must not contain '..'`);
  return parts;
}

function inside(base: string, path: string): boolean {
  const rel = relative(base, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** An open, pinned subPath: bind-mount `fdPath` (not the path string) so that a later symlink swap cannot redirect the mount. */
export interface OpenSubPath {
  handle: FileHandle;
  /** `/proc/<pid>/fd/<n>`. */
  fdPath: string;
  /** The resolved path at the time it was opened (for messages). */
  resolved: string;
  isDirectory: boolean;
}

/**
 * Resolves `subPath` inside `volumePath` without ever leaving it (upstream subpath_linux.go, the
 * fix for CVE-2017-1002101): symlinks are evaluated and the result must stay inside the volume's
 * real path; then the resolved path is re-walked from the volume root one component at a time,
 * each opened relative to its parent's fd with O_NOFOLLOW, so a symlink swapped in meanwhile is
 * refused rather than followed. Missing components are created as directories (0750), as the
 * kubelet does. The caller must close `handle`.
 */
export async function openSubPath(volumePath: string, subPath: string): Promise<OpenSubPath> {
  const parts = validateSubPath(subPath);
  const base = await realpath(volumePath);

  // 1. Make missing components, one by one, never through a symlink that leads outside.
  let current = base;
  for (const part of parts) {
    const next = join(current, part);
    const real = await realpath(next).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    });
    if (real === undefined) {
      // A dangling symlink: say where it leads rather than create anything through it.
      const link = await lstat(next).catch(() => undefined);
      if (link?.isSymbolicLink() === true) {
        const dest = resolve(current, await readlink(next));
        if (!inside(base, dest))
          throw escape(`subpath ${JSON.stringify(subPath)} not within volume path ${JSON.stringify(base)}: ${next} links to ${dest}`);
        throw new VolumeError('INVALID_VOLUME', `subpath ${JSON.stringify(subPath)}: ${next} is a dangling symlink to ${dest}`);
      }
      await mkdir(next, { mode: 0o750 }).catch((err: unknown) => {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      });
      current = await realpath(next);
    } else {
      current = real;
    }
    if (!inside(base, current))
      throw escape(`subpath ${JSON.stringify(subPath)} not within volume path ${JSON.stringify(base)}: it resolves to ${current}`);
  }

  // 2. Re-walk the resolved path by fd with O_NOFOLLOW.
  const components = relative(base, current)
    .split(sep)
    .filter((p) => p !== '');
  let handle = await open(base, O_PATH | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  try {
    for (const component of components) {
      const child = await open(`/proc/self/fd/${handle.fd}/${component}`, O_PATH | constants.O_NOFOLLOW);
      await handle.close();
      handle = child;
      if ((await handle.stat()).isSymbolicLink()) {
        throw escape(
          `subpath ${JSON.stringify(subPath)}: component ${JSON.stringify(component)} of ${current} changed to a symlink while it was being opened`,
        );
      }
    }
    const info = await handle.stat();
    return { handle, fdPath: `/proc/${process.pid}/fd/${handle.fd}`, resolved: current, isDirectory: info.isDirectory() };
  } catch (err) {
    await handle.close().catch(() => undefined);
    throw err;
  }
}
