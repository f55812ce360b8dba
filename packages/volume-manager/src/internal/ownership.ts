import type { Stats } from 'node:fs';
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';

// Upstream volume.SetVolumeOwnership's masks: the group gets read (and write, for a writable volume)
// on every file, execute on every directory, and directories keep new files in the group (setgid).
const RW_MASK = 0o660;
const RO_MASK = 0o440;
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/** The fsGroup a pod's volumes are given, and whether a matching volume root means "already done". */
export interface VolumeOwnership {
  fsGroup: number;
  onRootMismatch: boolean;
}

export function podVolumeOwnership(pod: Pod): VolumeOwnership | undefined {
  const sc = pod.spec.securityContext;
  if (sc?.fsGroup === undefined || sc.fsGroup === null) return undefined;
  return { fsGroup: Number(sc.fsGroup), onRootMismatch: sc.fsGroupChangePolicy === 'OnRootMismatch' };
}

/** The permission bits a file gets from fsGroup ownership (what a payload's modes are raised to). */
export const ownedFileMode = (mode: number, readOnly: boolean): number => mode | (readOnly ? RO_MASK : RW_MASK);

function wantedMode(info: Stats, readOnly: boolean): number {
  const mode = info.mode & 0o7777;
  return info.isDirectory() ? ownedFileMode(mode, readOnly) | EXEC_MASK | SETGID : ownedFileMode(mode, readOnly);
}

/**
 * Gives everything under `dir` (itself included) to the group `fsGroup`, as upstream
 * SetVolumeOwnership: group changed (owners kept), group permissions added, symlinks only
 * re-grouped. With `onRootMismatch`, nothing is walked when the root already has the group and
 * the permissions (upstream fsGroupChangePolicy OnRootMismatch).
 */
export async function setVolumeOwnership(dir: string, ownership: VolumeOwnership, readOnly: boolean): Promise<void> {
  const root = await lstat(dir);
  if (ownership.onRootMismatch && root.gid === ownership.fsGroup && (root.mode & 0o7777) === wantedMode(root, readOnly)) return;
  const visit = async (path: string, info: Stats): Promise<void> => {
    if (info.gid !== ownership.fsGroup) await lchown(path, info.uid, ownership.fsGroup);
    if (info.isSymbolicLink()) return;
    const mode = wantedMode(info, readOnly);
    if ((info.mode & 0o7777) !== mode) await chmod(path, mode);
    if (!info.isDirectory()) return;
    for (const name of await readdir(path)) {
      const child = join(path, name);
      await visit(child, await lstat(child));
    }
  };
  await visit(dir, root);
}
