import { promises as fsp } from 'node:fs';
import type { CgroupFs } from '../cgroup-fs.js';

export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export const nodeCgroupFs: CgroupFs = {
  readFile: (path) => fsp.readFile(path, 'utf8'),
  writeFile: (path, data) => fsp.writeFile(path, data),
  async mkdir(path) {
    try {
      await fsp.mkdir(path);
      return true;
    } catch (err) {
      if (errnoCode(err) !== 'EEXIST') throw err;
      if (await nodeCgroupFs.isDir(path)) return false;
      // A regular file (a control file such as cgroup.procs) is in the way.
      throw Object.assign(new Error(`ENOTDIR: ${path} exists and is not a directory`), { code: 'ENOTDIR', cause: err });
    }
  },
  rmdir: (path) => fsp.rmdir(path),
  async subdirs(path) {
    const entries = await fsp.readdir(path, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  },
  async isDir(path) {
    try {
      return (await fsp.stat(path)).isDirectory();
    } catch {
      return false;
    }
  },
};
