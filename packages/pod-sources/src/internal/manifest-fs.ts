import { open, readdir, stat } from 'node:fs/promises';
import { decodeManifestBytes } from './text.js';

/** What the file source needs of a stat. */
export type FileStat = {
  isFile(): boolean;
  isDirectory(): boolean;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  birthtimeMs: number;
};

/** File-system calls of the file source; injectable so tests can count what is read. */
export interface ManifestFs {
  stat(path: string): Promise<FileStat>;
  readdir(path: string): Promise<string[]>;
  /**
   * Reads a manifest up to `maxBytes`, with the stamp of the opened file taken before reading;
   * `stamp` is undefined when it cannot be trusted yet (the file was modified a moment ago).
   */
  readManifest(file: string, maxBytes: number): Promise<{ text: string; stamp: string | undefined }>;
}

/** Identifies a directory across replacement: inode numbers are reused at once, birth times are not. */
export function identity(info: { dev: number; ino: number; birthtimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.birthtimeMs}`;
}

/** What tells a changed file: any write changes mtime and ctime; a replacement (rename) changes the inode. */
export function stampOf(info: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/** Timestamps are 1 s on some file systems (2 s on FAT); above that a stamp is trusted. */
const RACY_STAMP_MS = 2_000;

async function readLimited(file: string, maxBytes: number): Promise<{ text: string; stamp: string | undefined }> {
  const handle = await open(file, 'r');
  try {
    // Stamped before reading: a write during the read changes the stamp, so the next check reads again.
    const info = await handle.stat();
    if (info.size > maxBytes) throw new Error(`manifest is ${info.size} bytes, over the limit of ${maxBytes} bytes`);
    // Read until EOF rather than trusting the size: the file may be growing while we read it.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw new Error(`manifest is over the limit of ${maxBytes} bytes`);
      chunks.push(chunk.subarray(0, bytesRead));
    }
    const decoded = decodeManifestBytes(Buffer.concat(chunks, total));
    if (!decoded.ok) throw new Error(decoded.reason);
    const text = decoded.text;
    // "Racy" stamps, as git's index: on a file system with coarse timestamps, a same-size rewrite
    // within the same tick as this read would leave the stamp unchanged. A file modified in the last
    // RACY_STAMP_MS is not cached (read again on the next check). Wall time, as the file's mtime is.
    const racy = Date.now() - info.mtimeMs < RACY_STAMP_MS;
    return { text, stamp: racy ? undefined : stampOf(info) };
  } finally {
    await handle.close();
  }
}

/** The real file system (tests wrap it to count calls). */
export const nodeManifestFs: ManifestFs = { stat: (p) => stat(p), readdir: (p) => readdir(p), readManifest: readLimited };
