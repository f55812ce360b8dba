// Reading a container's log: pkg/kubelet/kuberuntime/logs ReadLogs, extended to the rotated files
// (oldest first, `.gz` ones decompressed) and to a follow that survives rotation.
import { createReadStream, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { Clock, Logger } from '@kubelet-ts/common';
import { formatTimestampFixed, isNotFound, parseCriLogLine } from '@kubelet-ts/cri-client';
import type { LogStream, RuntimeService } from '@kubelet-ts/cri-client';
import { LineSplitter, PartialLineAssembler } from './cri-log.js';
import type { LogEntry } from './cri-log.js';
import { ContainerLogsError } from './errors.js';
import { COMPRESS_SUFFIX, filterUnusedLogs, listRotatedFiles } from './log-files.js';
import type { LogOptions } from './options.js';

/** Bytes for one output stream, formatted (timestamps) and cut (limitBytes). */
export interface LogChunk {
  stream: LogStream;
  data: Buffer;
}

export interface ReadLogsOptions {
  /** The container's current log file (CRI ContainerStatus `logPath`). */
  logPath: string;
  options: LogOptions;
  /** Needed to follow: following stops once CRI ContainerStatus says the container is not running. */
  containerId?: string;
  runtime?: Pick<RuntimeService, 'containerStatus'>;
  /** Read the rotated files before the current one (default true; upstream reads only the current file). */
  includeRotated?: boolean;
  /** How often a follower looks for new data, a rotation and the container's state (ms); default 250. */
  pollIntervalMs?: number;
  /** Ends the read (the iterator then returns quietly). */
  signal?: AbortSignal;
  clock?: Clock;
  logger?: Logger;
}

const CAUGHT_UP = Symbol('caught-up');
const CHUNK = 64 * 1024;

/**
 * Reads a container's log as chunks per stream. Lines are CRI records; partial (P) records are joined with
 * the record that completes them. Honours tail (across files), since, stream selection, timestamps and
 * limitBytes; with follow it keeps reading new lines, switches to the new file after a rotation (after
 * draining the renamed one), and ends when the container is no longer running (or the signal aborts).
 */
export async function* readLogs(read: ReadLogsOptions): AsyncGenerator<LogChunk> {
  const opts = read.options;
  const logger = read.logger ?? noopLogger;
  const assembler = new PartialLineAssembler();
  const ring: LogEntry[] = [];
  let live = opts.tail < 0;
  let remain = opts.limitBytes >= 0 ? opts.limitBytes : Number.POSITIVE_INFINITY;
  if (remain === 0 || (opts.tail === 0 && !opts.follow)) return;

  const accept = (entry: LogEntry): boolean =>
    (opts.stream === 'All' || (opts.stream === 'Stdout' ? entry.stream === 'stdout' : entry.stream === 'stderr')) &&
    (opts.sinceNs === undefined || entry.timeNs >= opts.sinceNs);
  const format = (entry: LogEntry): LogChunk => {
    let data = opts.timestamps ? Buffer.concat([Buffer.from(`${formatTimestampFixed(entry.timestamp)} `), entry.content]) : entry.content;
    if (data.length > remain) data = data.subarray(0, remain);
    remain -= data.length;
    return { stream: entry.stream, data };
  };
  // The last `tail` entries: a ring (start index) so that a large tail stays linear.
  let ringStart = 0;
  const keep = (entry: LogEntry): void => {
    if (opts.tail <= 0) return;
    if (ring.length < opts.tail) ring.push(entry);
    else {
      ring[ringStart] = entry;
      ringStart = (ringStart + 1) % opts.tail;
    }
  };
  const drainRing = (): LogEntry[] => {
    const ordered = [...ring.slice(ringStart), ...ring.slice(0, ringStart)];
    ring.length = 0;
    ringStart = 0;
    return ordered;
  };

  for await (const item of rawLines(read)) {
    if (item === CAUGHT_UP) {
      if (!live) {
        for (const entry of drainRing()) {
          yield format(entry);
          if (remain <= 0) return;
        }
        live = true;
      }
      continue;
    }
    let entry: LogEntry | undefined;
    try {
      entry = assembler.push(parseCriLogLine(item));
    } catch (err) {
      logger.debug('Failed when parsing line in log file', { path: read.logPath, err: errorMessage(err) });
      continue;
    }
    if (entry === undefined || !accept(entry)) continue;
    if (!live) {
      keep(entry);
      continue;
    }
    yield format(entry);
    if (remain <= 0) return;
  }
  for (const entry of assembler.flush()) {
    if (!accept(entry)) continue;
    if (!live) keep(entry);
    else {
      yield format(entry);
      if (remain <= 0) return;
    }
  }
  for (const entry of drainRing()) {
    yield format(entry);
    if (remain <= 0) return;
  }
}

interface OpenFile {
  handle: FileHandle;
  ino: number;
  dev: number;
  pos: number;
}

async function openIfExists(file: string): Promise<OpenFile | undefined> {
  try {
    const handle = await fs.open(file, 'r');
    const st = await handle.stat();
    return { handle, ino: st.ino, dev: st.dev, pos: 0 };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ContainerLogsError('IO', `failed to open log file ${JSON.stringify(file)}`, { cause: err });
  }
}

async function statIfExists(file: string): Promise<{ ino: number; dev: number } | undefined> {
  try {
    const st = await fs.stat(file);
    return { ino: st.ino, dev: st.dev };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ContainerLogsError('IO', `failed to stat log file ${JSON.stringify(file)}`, { cause: err });
  }
}

/** Raw bytes of a rotated file, decompressed when `.gz`; an uncompressed one compressed meanwhile is read from its `.gz`. */
async function* rotatedFileChunks(file: string): AsyncGenerator<Buffer> {
  const candidates = file.endsWith(COMPRESS_SUFFIX) ? [file] : [file, file + COMPRESS_SUFFIX];
  for (const candidate of candidates) {
    let handle: FileHandle;
    try {
      handle = await fs.open(candidate, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // compressed or removed meanwhile
      throw new ContainerLogsError('IO', `failed to open log file ${JSON.stringify(candidate)}`, { cause: err });
    }
    // The open handle keeps the content readable even if rotation removes the name now.
    const input = createReadStream('', { fd: handle, autoClose: true });
    const source = candidate.endsWith(COMPRESS_SUFFIX) ? input.pipe(createGunzip()) : input;
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (err) {
      throw new ContainerLogsError('IO', `failed to read log file ${JSON.stringify(candidate)}`, { cause: err });
    } finally {
      input.destroy();
    }
    return;
  }
}

/** Reads what `file` has from its position on; false at EOF. */
async function readMore(file: OpenFile, buffer: Buffer): Promise<Buffer | undefined> {
  const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, file.pos);
  if (bytesRead === 0) return undefined;
  file.pos += bytesRead;
  return Buffer.from(buffer.subarray(0, bytesRead));
}

/** Lines of every file, in order; CAUGHT_UP once when a follower first reaches the end of the current file. */
async function* rawLines(read: ReadLogsOptions): AsyncGenerator<Buffer | typeof CAUGHT_UP> {
  const clock = read.clock ?? systemClock;
  const pollMs = read.pollIntervalMs ?? 250;
  const follow = read.options.follow;
  const signal = read.signal;
  const splitter = new LineSplitter();
  const buffer = Buffer.alloc(CHUNK);
  // Open the current file first, then list the rotated ones: a rotation in between makes our open file
  // one of the rotated names, which is then skipped (same inode) instead of read twice.
  let current = await openIfExists(read.logPath);
  try {
    if (read.includeRotated !== false) {
      const rotated = filterUnusedLogs(await listRotatedFiles(read.logPath)).inuse.sort();
      for (const file of rotated) {
        if (current !== undefined) {
          const st = await statIfExists(file);
          if (st !== undefined && st.ino === current.ino && st.dev === current.dev) continue;
        }
        for await (const chunk of rotatedFileChunks(file)) yield* splitter.push(chunk);
        if (signal?.aborted === true) return;
      }
    }
    let caughtUp = false;
    let stopping = false;
    for (;;) {
      if (signal?.aborted === true) return;
      if (current !== undefined) {
        const chunk = await readMore(current, buffer);
        if (chunk !== undefined) {
          yield* splitter.push(chunk);
          continue;
        }
      }
      // At the end of the current file.
      if (!follow || stopping) break;
      if (!caughtUp) {
        caughtUp = true;
        yield CAUGHT_UP;
      }
      const st = await statIfExists(read.logPath);
      if (st !== undefined && (current === undefined || st.ino !== current.ino || st.dev !== current.dev)) {
        // Rotated (or created): what was written to the old file before the reopen was read above; go on with the new one.
        const next = await openIfExists(read.logPath);
        if (next !== undefined) {
          if (current !== undefined) {
            for (let more = await readMore(current, buffer); more !== undefined; more = await readMore(current, buffer))
              yield* splitter.push(more);
            await current.handle.close();
          }
          current = next;
          continue;
        }
      }
      if (!(await isRunning(read))) {
        // Read what the container wrote before it ended, then stop.
        stopping = true;
        continue;
      }
      try {
        await clock.sleep(pollMs, signal);
      } catch {
        return;
      }
    }
    if (follow && !caughtUp) yield CAUGHT_UP;
    const rest = splitter.takeRest();
    if (rest.length > 0) yield rest;
  } finally {
    await current?.handle.close().catch(() => undefined);
  }
}

async function isRunning(read: ReadLogsOptions): Promise<boolean> {
  if (read.runtime === undefined || read.containerId === undefined) return true;
  try {
    const response = await read.runtime.containerStatus(
      { containerId: read.containerId, verbose: false },
      read.signal === undefined ? {} : { signal: read.signal },
    );
    return response.status?.state === 'CONTAINER_RUNNING';
  } catch (err) {
    if (isNotFound(err)) return false;
    if (read.signal?.aborted === true) return false;
    throw ContainerLogsError.from(err, 'RUNTIME', `failed to get container status ${JSON.stringify(read.containerId)}`);
  }
}
