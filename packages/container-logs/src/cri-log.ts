// The CRI log format (cri-api LogStreamType/LogTag): `<RFC3339Nano> <stdout|stderr> <P|F>[:tags] <content>\n`.
// containerd splits a long line into P(artial) records ending with one F(ull) record.
import { ContainerLogsError } from './errors.js';

export type LogStream = 'stdout' | 'stderr';

/** One record of a CRI log file. */
export interface CriLogRecord {
  /** The timestamp as written by the runtime (RFC3339Nano, any offset). */
  timestamp: string;
  /** Nanoseconds since the Unix epoch. */
  timeNs: bigint;
  stream: LogStream;
  /** True for a P record: the line continues in the next record of the same stream. */
  partial: boolean;
  /** The content, without the trailing newline. */
  content: Buffer;
}

/** A whole line after partial records were joined: the timestamp is the first record's. */
export interface LogEntry {
  timestamp: string;
  timeNs: bigint;
  stream: LogStream;
  /** The content; ends with "\n" unless the line was never completed (the container ended mid-line). */
  content: Buffer;
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** RFC3339 (any fraction up to ns, `Z` or an offset) to nanoseconds since the epoch; undefined when it does not parse. */
export function parseTimestampNs(text: string): bigint | undefined {
  const m = TIMESTAMP.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(ms)) return undefined;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
}

/**
 * The output form of a timestamp: RFC3339 with exactly nine fraction digits, in the zone the runtime
 * wrote (matches kubelet's RFC3339NanoFixed output of `timestamps=true`).
 */
export function formatTimestampFixed(timestamp: string): string {
  const m = TIMESTAMP.exec(timestamp);
  if (m === null) return timestamp;
  const [, y, mo, d, h, mi, s, frac = '', zone = 'Z'] = m;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(9, '0')}${zone}`;
}

/** Milliseconds since the epoch to RFC3339Nano in UTC with nine fraction digits. */
export function formatEpochMs(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

const SPACE = 0x20;

/**
 * Parses one CRI log line (without its newline).
 * @throws ContainerLogsError with code PARSE.
 */
export function parseCriLogLine(line: Buffer | string): CriLogRecord {
  const buf = typeof line === 'string' ? Buffer.from(line) : line;
  const first = buf.indexOf(SPACE);
  if (first < 0) throw new ContainerLogsError('PARSE', 'timestamp is not found');
  const timestamp = buf.toString('latin1', 0, first);
  const timeNs = parseTimestampNs(timestamp);
  if (timeNs === undefined) throw new ContainerLogsError('PARSE', `unexpected timestamp format ${JSON.stringify(timestamp)}`);
  const second = buf.indexOf(SPACE, first + 1);
  if (second < 0) throw new ContainerLogsError('PARSE', 'stream type is not found');
  const stream = buf.toString('latin1', first + 1, second);
  if (stream !== 'stdout' && stream !== 'stderr') throw new ContainerLogsError('PARSE', `unexpected stream type ${JSON.stringify(stream)}`);
  const third = buf.indexOf(SPACE, second + 1);
  // An empty F line may be written as "... stdout F" with no trailing space by some runtimes.
  const tagEnd = third < 0 ? buf.length : third;
  const tags = buf.toString('latin1', second + 1, tagEnd);
  if (tags === '') throw new ContainerLogsError('PARSE', 'log tag is not found');
  const partial = tags.split(':')[0] === 'P';
  let content = third < 0 ? Buffer.alloc(0) : buf.subarray(third + 1);
  if (content.length > 0 && content[content.length - 1] === 0x0a) content = content.subarray(0, content.length - 1);
  return { timestamp, timeNs, stream, partial, content };
}

/** Formats a record as a runtime writes it (for tests and tools). */
export function formatCriLogLine(record: { timestamp: string; stream: LogStream; partial?: boolean; content: string | Buffer }): Buffer {
  const content = typeof record.content === 'string' ? Buffer.from(record.content) : record.content;
  return Buffer.concat([Buffer.from(`${record.timestamp} ${record.stream} ${record.partial === true ? 'P' : 'F'} `), content, Buffer.from('\n')]);
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
