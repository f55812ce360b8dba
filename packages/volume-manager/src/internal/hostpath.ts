import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { VolumeError } from '../errors.js';

const check = (message: string): VolumeError => new VolumeError('HOSTPATH_TYPE_CHECK', message);

/** Upstream checkTypeInternal: the checks (and creations) of hostPath.type, with upstream messages (a missing path "is not a directory"). */
export async function checkHostPathType(path: string, type: string | undefined): Promise<void> {
  const info = await stat(path).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  });
  switch (type ?? '') {
    case '':
      return;
    case 'DirectoryOrCreate':
      if (info === undefined) {
        await mkdir(path, { recursive: true, mode: 0o755 });
        return;
      }
      if (!info.isDirectory()) throw check(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'Directory':
      if (info?.isDirectory() !== true) throw check(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'FileOrCreate':
      if (info === undefined) {
        const handle = await open(path, constants.O_CREAT | constants.O_WRONLY, 0o644);
        await handle.close();
        return;
      }
      if (info?.isFile() !== true) throw check(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'File':
      if (info?.isFile() !== true) throw check(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'Socket':
      if (info?.isSocket() !== true) throw check(`hostPath type check failed: ${path} is not a socket file`);
      return;
    case 'CharDevice':
      if (info?.isCharacterDevice() !== true) throw check(`hostPath type check failed: ${path} is not a character device`);
      return;
    case 'BlockDevice':
      if (info?.isBlockDevice() !== true) throw check(`hostPath type check failed: ${path} is not a block device`);
      return;
    default:
      throw new VolumeError('INVALID_VOLUME', `${type ?? ''} is an invalid volume type`);
  }
}
