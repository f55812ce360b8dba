// Names of a container's log files, as upstream's container_log_manager.go lays them out:
// `<path>` (current), `<path>.<YYYYMMDD-hhmmss>` (the latest rotated one), `<path>.<stamp>.gz` (older ones).
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Suffix of a compressed rotated log. */
export const COMPRESS_SUFFIX = '.gz';
/** Suffix of a file being compressed (a leftover of an interrupted rotation when found). */
export const TMP_SUFFIX = '.tmp';

/**
 * The rotated-file suffix for a time: Go's `20060102-150405` in the node's local time, as upstream
 * (`clock.Now().Format(timestampFormat)`).
 */
export function rotationTimestamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/**
 * Splits `<path>.*` files into in-use and unused ones (matches upstream filterUnusedLogs): `.tmp`
 * files are unused; `.gz` files are in use; an uncompressed file whose `.gz` exists is unused (its
 * compression finished but the removal did not).
 */
export function filterUnusedLogs(logs: readonly string[]): { inuse: string[]; unused: string[] } {
  const all = new Set(logs);
  const inuse: string[] = [];
  const unused: string[] = [];
  for (const l of logs) {
    if (l.endsWith(TMP_SUFFIX)) unused.push(l);
    else if (l.endsWith(COMPRESS_SUFFIX)) inuse.push(l);
    else if (all.has(l + COMPRESS_SUFFIX)) unused.push(l);
    else inuse.push(l);
  }
  return { inuse, unused };
}

/** Every `<logPath>.*` file (rotated, compressed, temporary), sorted by name; [] when the directory is gone. */
export async function listRotatedFiles(logPath: string): Promise<string[]> {
  const dir = path.dirname(logPath);
  const prefix = `${path.basename(logPath)}.`;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.length > prefix.length)
    .sort()
    .map((n) => path.join(dir, n));
}

/**
 * Every in-use log file of a container, oldest first, ending with the current one (upstream
 * GetAllLogs). The current file is listed even when it does not exist (yet).
 */
export async function getAllLogs(logPath: string): Promise<string[]> {
  const { inuse } = filterUnusedLogs(await listRotatedFiles(logPath));
  return [...inuse.sort(), logPath];
}
