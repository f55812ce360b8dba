// Reading CRI log files: whole lines out of partial records, and lines out of a byte stream. The
// format itself (parseCriLogLine, timestamps) is @kubelet-ts/cri-client's.
import type { CriLogRecord, LogStream } from '@kubelet-ts/cri-client';

/** A whole line after partial records were joined: the timestamp is the first record's. */
export interface LogEntry {
  timestamp: string;
  timeNs: bigint;
  stream: LogStream;
  /** The content; ends with "\n" unless the line was never completed (the container ended mid-line). */
  content: Buffer;
}

/** Milliseconds since the epoch to RFC3339Nano in UTC with nine fraction digits. */
export function formatEpochMs(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

/**
 * Joins P records with the F record that ends them, per stream (stdout and stderr records may interleave).
 * A partial line longer than `maxLineBytes` is let out as it is, so one endless line cannot exhaust memory.
 */
export class PartialLineAssembler {
  readonly #pending = new Map<LogStream, { first: CriLogRecord; parts: Buffer[]; size: number }>();
  readonly #maxLineBytes: number;

  constructor(maxLineBytes = 1 << 20) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** Adds a record; returns the entry it completes, if any. */
  push(record: CriLogRecord): LogEntry | undefined {
    const pending = this.#pending.get(record.stream);
    if (record.partial) {
      if (pending === undefined) {
        this.#pending.set(record.stream, { first: record, parts: [record.content], size: record.content.length });
      } else {
        pending.parts.push(record.content);
        pending.size += record.content.length;
      }
      const now = this.#pending.get(record.stream);
      if (now !== undefined && now.size >= this.#maxLineBytes) {
        this.#pending.delete(record.stream);
        return { timestamp: now.first.timestamp, timeNs: now.first.timeNs, stream: record.stream, content: Buffer.concat(now.parts) };
      }
      return undefined;
    }
    this.#pending.delete(record.stream);
    const first = pending?.first ?? record;
    const parts = pending === undefined ? [record.content] : [...pending.parts, record.content];
    return { timestamp: first.timestamp, timeNs: first.timeNs, stream: record.stream, content: Buffer.concat([...parts, NEWLINE]) };
  }

  /** The lines never completed, oldest first (at the end of a log that is not followed). */
  flush(): LogEntry[] {
    const entries = [...this.#pending.values()]
      .sort((a, b) => (a.first.timeNs < b.first.timeNs ? -1 : a.first.timeNs > b.first.timeNs ? 1 : 0))
      .map((p) => ({ timestamp: p.first.timestamp, timeNs: p.first.timeNs, stream: p.first.stream, content: Buffer.concat(p.parts) }));
    this.#pending.clear();
    return entries;
  }
}

const NEWLINE = Buffer.from('\n');

/** Splits a byte stream into lines (without the "\n"). */
export class LineSplitter {
  #rest: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    const data = this.#rest.length === 0 ? chunk : Buffer.concat([this.#rest, chunk]);
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      lines.push(data.subarray(start, nl));
      start = nl + 1;
    }
    this.#rest = start === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(start));
    return lines;
  }

  /** Bytes after the last newline. */
  get rest(): Buffer {
    return this.#rest;
  }

  takeRest(): Buffer {
    const rest = this.#rest;
    this.#rest = Buffer.alloc(0);
    return rest;
  }
}
