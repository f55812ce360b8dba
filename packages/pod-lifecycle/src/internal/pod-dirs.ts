import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parseMountInfo } from '@kubelet-ts/common';
import { PodLifecycleError } from '../errors.js';

/** `<rootDir>/pods/<uid>` (upstream getPodDir). */
export function podDir(rootDir: string, uid: string): string {
  return join(rootDir, 'pods', uid);
}

/** Upstream makePodDataDirs: the pod dir with its volumes and plugins dirs (0750). */
export async function makePodDataDirs(rootDir: string, uid: string): Promise<void> {
  const dir = podDir(rootDir, uid);
  try {
    for (const sub of ['volumes', 'plugins']) await mkdir(join(dir, sub), { recursive: true, mode: 0o750 });
  } catch (err) {
    throw new PodLifecycleError('POD_DIR_ERROR', `failed to make pod data directories for pod ${uid}: ${String(err)}`, { cause: err });
  }
}

/** The pod UIDs that have a directory under `<rootDir>/pods`. */
export async function listPodDirs(rootDir: string): Promise<string[]> {
  try {
    const entries = await readdir(join(rootDir, 'pods'), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Mount points of this process, decoded from /proc/self/mountinfo (octal escapes such as \040). */
export async function readMountPoints(path = '/proc/self/mountinfo'): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return [];
  }
  return parseMountInfo(text).map((m) => m.mountPoint);
}

/**
 * Removes an orphaned pod directory, but never one with something still mounted below it
 * (upstream cleanupOrphanedPodDirs refuses to remove pods with mounted volumes).
 */
export async function removePodDir(rootDir: string, uid: string, mountPoints: () => Promise<string[]> = readMountPoints): Promise<void> {
  const dir = podDir(rootDir, uid);
  const mounted = (await mountPoints()).filter((m) => m === dir || m.startsWith(dir + sep));
  if (mounted.length > 0) {
    throw new PodLifecycleError(
      'POD_DIR_ERROR',
      `orphaned pod ${JSON.stringify(uid)} found, but volumes are still mounted on disk: ${mounted.join(', ')}`,
    );
  }
  await rm(dir, { recursive: true, force: true });
}
