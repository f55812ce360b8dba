import { constants } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { VolumeError } from '../errors.js';

const check = (message: string): VolumeError => new VolumeError('HOSTPATH_TYPE_CHECK', message);

/** Upstream hostPathTypeChecker: the checks (and creations) of hostPath.type, with upstream messages. */
export async function checkHostPathType(path: string, type: string | undefined): Promise<void> {
  const info = await stat(path).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  });
  const missing = (): VolumeError => check(`hostPath type check failed: ${path} does not exist`);
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
      if (info === undefined) throw missing();
      if (!info.isDirectory()) throw check(`hostPath type check failed: ${path} is not a directory`);
      return;
    case 'FileOrCreate':
      if (info === undefined) {
        const handle = await open(path, constants.O_CREAT | constants.O_WRONLY, 0o644);
        await handle.close();
        return;
      }
      if (!info.isFile()) throw check(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'File':
      if (info === undefined) throw missing();
      if (!info.isFile()) throw check(`hostPath type check failed: ${path} is not a file`);
      return;
    case 'Socket':
      if (info === undefined) throw missing();
      if (!info.isSocket()) throw check(`hostPath type check failed: ${path} is not a socket file`);
      return;
    case 'CharDevice':
      if (info === undefined) throw missing();
      if (!info.isCharacterDevice()) throw check(`hostPath type check failed: ${path} is not a character device`);
      return;
    case 'BlockDevice':
      if (info === undefined) throw missing();
      if (!info.isBlockDevice()) throw check(`hostPath type check failed: ${path} is not a block device`);
      return;
    default:
      throw new VolumeError('INVALID_VOLUME', `hostPath type ${JSON.stringify(type)} is not supported`);
  }
}
