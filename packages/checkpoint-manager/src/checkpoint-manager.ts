import { open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from './errors.js';

/**
 * Upstream CheckpointManager (pkg/kubelet/checkpointmanager) over its file store: one file per
 * checkpoint in the kubelet's root dir, replaced atomically (a hidden temporary file, fsync,
 * rename), so that a crash leaves the old or the new content, never a mix. The upstream kubelet
 * reads what this writes and the other way round.
 */
export interface CheckpointManager {
  /** The checkpoint's bytes; a CheckpointError NOT_FOUND when there is none. */
  read(name: string): Promise<Buffer>;
  write(name: string, data: Uint8Array): Promise<void>;
  /** Removes the checkpoint; removing a missing one is not an error. */
  remove(name: string): Promise<void>;
  /** The names of the checkpoints in the directory (temporary files left by a crash excluded). */
  list(): Promise<string[]>;
}

export interface CheckpointManagerOptions {
  /** The directory the checkpoints live in: the kubelet's root dir for the resource managers. */
  dir: string;
}

// Upstream utilstore.ValidateKey.
const KEY = /^([a-zA-Z0-9]+[-_.]?)*[a-zA-Z0-9]+$/;
const MAX_KEY_LENGTH = 250;
const TEMP_PREFIX = '.';

export function createCheckpointManager(options: CheckpointManagerOptions): CheckpointManager {
  const { dir } = options;
  const pathOf = (name: string): string => {
    if (name.length > MAX_KEY_LENGTH || !KEY.test(name)) {
      throw new CheckpointError('INVALID', `invalid checkpoint name ${JSON.stringify(name)}`);
    }
    return join(dir, name);
  };
  return {
    async read(name) {
      const path = pathOf(name);
      try {
        return await readFile(path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          throw new CheckpointError('NOT_FOUND', 'checkpoint is not found', { cause: err });
        throw new CheckpointError('IO', `reading checkpoint ${path}`, { cause: err });
      }
    },
    async write(name, data) {
      const path = pathOf(name);
      const temp = join(dir, `${TEMP_PREFIX}${name}.${process.pid}.${Date.now().toString(36)}`);
      try {
        // 0600, as Go's os.CreateTemp makes the upstream store's temporary file.
        const file = await open(temp, 'wx', 0o600);
        try {
          await file.writeFile(data);
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(temp, path);
      } catch (err) {
        await rm(temp, { force: true }).catch(() => undefined);
        throw new CheckpointError('IO', `writing checkpoint ${path}`, { cause: err });
      }
    },
    async remove(name) {
      const path = pathOf(name);
      await rm(path, { force: true }).catch((err: unknown) => {
        throw new CheckpointError('IO', `removing checkpoint ${path}`, { cause: err });
      });
    },
    async list() {
      const entries = await readdir(dir, { withFileTypes: true }).catch((err: unknown) => {
        throw new CheckpointError('IO', `listing checkpoints in ${dir}`, { cause: err });
      });
      return entries.filter((e) => e.isFile() && !e.name.startsWith(TEMP_PREFIX) && KEY.test(e.name)).map((e) => e.name);
    },
  };
}
