import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, posix } from 'node:path';
import { VolumeError } from './errors.js';

/** One file of a volume's payload. */
export interface FileProjection {
  data: Buffer;
  /** Permission bits (0o644 when absent). */
  mode?: number;
}

const DATA_LINK = '..data';
const DATA_TMP_LINK = '..data_tmp';

/**
 * Checks a payload path as upstream validatePath does: relative, not empty, no `..` element,
 * not starting with `..`, at most 4096 bytes.
 */
export function validatePayloadPath(path: string): void {
  const fail = (reason: string): never => {
    throw new VolumeError('PATH_ESCAPE', `invalid path ${JSON.stringify(path)}: ${reason}`);
  };
  if (path === '') fail('must not be empty');
  if (Buffer.byteLength(path) > 4096) fail('must be less than or equal to 4096 characters');
  if (isAbsolute(path)) fail('must be relative path');
  const items = path.split('/');
  if (items.includes('..')) fail("must not contain '..'");
  if (path.startsWith('..')) fail("must not start with '..'");
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
function tsDirName(nowMs: number): string {
  const d = new Date(nowMs);
  // Upstream: "..2006_01_02_15_04_05.<random>".
  return `..${d.getUTCFullYear()}_${pad(d.getUTCMonth() + 1)}_${pad(d.getUTCDate())}_${pad(d.getUTCHours())}_${pad(d.getUTCMinutes())}_${pad(d.getUTCSeconds())}.${randomBytes(5).toString('hex')}`;
}

const notFound = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

async function readPayload(dir: string, prefix = ''): Promise<Map<string, { data: Buffer; mode: number }>> {
  const out = new Map<string, { data: Buffer; mode: number }>();
  for (const entry of await readdir(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      for (const [k, v] of await readPayload(dir, rel)) out.set(k, v);
    } else if (entry.isFile()) {
      const full = join(dir, rel);
      out.set(rel, { data: await readFile(full), mode: (await stat(full)).mode & 0o7777 });
    }
  }
  return out;
}

function samePayload(current: Map<string, { data: Buffer; mode: number }>, wanted: Map<string, FileProjection>): boolean {
  if (current.size !== wanted.size) return false;
  for (const [path, file] of wanted) {
    const have = current.get(path);
    if (have === undefined || have.mode !== (file.mode ?? 0o644) || !have.data.equals(file.data)) return false;
  }
  return true;
}

export interface AtomicWriteOptions {
  /** Milliseconds since the epoch, for the timestamped directory's name (the injected clock's now()). */
  nowMs: number;
  /**
   * Called with the new generation's directory once its files are written, before anyone can see
   * them (upstream's setPerms: the fsGroup ownership of the files).
   */
  beforeSwap?: (generationDir: string) => Promise<void>;
}

/**
 * Writes `payload` into `targetDir` so that readers see either the old or the new set of files,
 * never a mix (upstream AtomicWriter): the files go to a fresh `..<timestamp>` directory, a
 * `..data_tmp` symlink to it is renamed over `..data`, and each user-visible top-level entry is
 * a symlink through `..data`. Returns false when the payload is unchanged (nothing written).
 */
export async function writeAtomic(targetDir: string, payload: Map<string, FileProjection>, options: AtomicWriteOptions): Promise<boolean> {
  for (const path of payload.keys()) validatePayloadPath(path);
  await mkdir(targetDir, { recursive: true });

  const oldTsName = await readlink(join(targetDir, DATA_LINK)).catch((err: unknown) => {
    if (notFound(err)) return undefined;
    throw err;
  });
  if (oldTsName !== undefined) {
    const current = await readPayload(join(targetDir, oldTsName)).catch(() => undefined);
    if (current !== undefined && samePayload(current, payload)) {
      await ensureUserLinks(targetDir, payload);
      return false;
    }
  }

  // 1. The new generation, fully written before anyone can see it.
  const tsName = tsDirName(options.nowMs);
  const tsDir = join(targetDir, tsName);
  await mkdir(tsDir, { mode: 0o755 });
  await chmod(tsDir, 0o755);
  for (const [path, file] of payload) {
    const full = join(tsDir, path);
    await mkdir(dirname(full), { recursive: true, mode: 0o755 });
    await writeFile(full, file.data, { mode: file.mode ?? 0o644 });
    await chmod(full, file.mode ?? 0o644); // writeFile's mode is filtered by the umask
  }
  await options.beforeSwap?.(tsDir);

  // 2. The swap: rename is atomic, so `..data` always points at a complete generation.
  await rm(join(targetDir, DATA_TMP_LINK), { force: true });
  await symlink(tsName, join(targetDir, DATA_TMP_LINK));
  await rename(join(targetDir, DATA_TMP_LINK), join(targetDir, DATA_LINK));

  // 3. User-visible links: new ones added, stale ones removed.
  await ensureUserLinks(targetDir, payload);

  // 4. The old generation goes last.
  if (oldTsName !== undefined && oldTsName !== tsName) await rm(join(targetDir, oldTsName), { recursive: true, force: true });
  return true;
}

async function ensureUserLinks(targetDir: string, payload: Map<string, FileProjection>): Promise<void> {
  const wanted = new Set<string>();
  for (const path of payload.keys()) {
    const first = posix.normalize(path).split('/')[0];
    if (first !== undefined && first !== '') wanted.add(first);
  }
  for (const name of wanted) {
    const link = join(targetDir, name);
    const info = await lstat(link).catch((err: unknown) => {
      if (notFound(err)) return undefined;
      throw err;
    });
    if (info === undefined) await symlink(posix.join(DATA_LINK, name), link);
  }
  for (const name of await readdir(targetDir)) {
    if (name.startsWith('..') || wanted.has(name)) continue;
    const info = await lstat(join(targetDir, name));
    if (info.isSymbolicLink()) await rm(join(targetDir, name), { force: true });
  }
}
