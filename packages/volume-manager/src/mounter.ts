import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { MountPoint } from '@kubelet-ts/common';
import { parseMountInfo } from '@kubelet-ts/common';
import { VolumeError } from './errors.js';

/**
 * The mount syscalls the volume manager needs (upstream mount.Interface, reduced). The real one
 * runs util-linux `mount`/`umount` and parses /proc/self/mountinfo; tests may inject a fake where
 * mounting is not the point.
 */
export interface Mounter {
  /** `mount -t <fsType> -o <options> <source> <target>`; options containing `bind` make a bind mount (then remounted read-only for `ro`). */
  mount(source: string, target: string, fsType: string, options: readonly string[]): Promise<void>;
  /** `umount <target>`. */
  unmount(target: string): Promise<void>;
  /** Every mount point of this mount namespace. */
  list(): Promise<MountPoint[]>;
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 60_000 }, (err, _stdout, stderr) => {
      if (err === null) {
        resolve();
        return;
      }
      const output = stderr.trim();
      reject(new VolumeError('MOUNT_FAILED', `${file} ${args.join(' ')} failed: ${output !== '' ? output : err.message}`, { cause: err }));
    });
  });
}

export interface SystemMounterOptions {
  /** Where mountinfo is read; `/proc/self/mountinfo` by default. */
  mountInfoPath?: string;
}

/** The real Mounter: util-linux mount/umount through child_process, /proc/self/mountinfo for the list. */
export function createSystemMounter(options: SystemMounterOptions = {}): Mounter {
  const mountInfoPath = options.mountInfoPath ?? '/proc/self/mountinfo';
  return {
    async mount(source, target, fsType, opts) {
      const bind = opts.includes('bind') || opts.includes('rbind');
      if (bind) {
        const rest = opts.filter((o) => o !== 'bind' && o !== 'rbind' && o !== 'ro' && o !== 'rw');
        // --no-canonicalize: a /proc/<pid>/fd/<n> source must reach the kernel as is (safe subPath).
        await run('mount', [
          '--no-canonicalize',
          opts.includes('rbind') ? '--rbind' : '--bind',
          ...(rest.length > 0 ? ['-o', rest.join(',')] : []),
          source,
          target,
        ]);
        // A bind mount ignores `ro` on the first call: remount it read-only (upstream does the same).
        if (opts.includes('ro')) await run('mount', ['-o', 'remount,bind,ro', target]);
        return;
      }
      await run('mount', ['-t', fsType, ...(opts.length > 0 ? ['-o', opts.join(',')] : []), source, target]);
    },
    async unmount(target) {
      await run('umount', [target]);
    },
    async list() {
      return parseMountInfo(await readFile(mountInfoPath, 'utf8'));
    },
  };
}

/** True when `path` is a mount point in `mounts` (matches mount.IsLikelyNotMountPoint's intent). */
export function isMountPoint(mounts: readonly MountPoint[], path: string): boolean {
  return mounts.some((m) => m.mountPoint === path);
}
