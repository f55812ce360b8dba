// The CRI log format (cri-api LogStreamType/LogTag): `<RFC3339Nano> <stdout|stderr> <P|F>[:tags] <content>\n`,
// as runtimes write container logs. The one parser of it: container-logs reads logs with it and
// crictl-ts prints them (upstream crictl uses the kubelet's logs package the same way).
// containerd splits a long line into P(artial) records ending with one F(ull) record.
import { CriError } from './errors.js';

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

const SPACE = 0x20;

/**
 * Parses one CRI log line (without its newline).
 * @throws CriError with code INVALID_ARGUMENT, the message saying what is wrong.
 */
export function parseCriLogLine(line: Buffer | string): CriLogRecord {
  const buf = typeof line === 'string' ? Buffer.from(line) : line;
  const first = buf.indexOf(SPACE);
  if (first < 0) throw new CriError('INVALID_ARGUMENT', 'timestamp is not found');
  const timestamp = buf.toString('latin1', 0, first);
  const timeNs = parseTimestampNs(timestamp);
  if (timeNs === undefined) throw new CriError('INVALID_ARGUMENT', `unexpected timestamp format ${JSON.stringify(timestamp)}`);
  const second = buf.indexOf(SPACE, first + 1);
  if (second < 0) throw new CriError('INVALID_ARGUMENT', 'stream type is not found');
  const stream = buf.toString('latin1', first + 1, second);
  if (stream !== 'stdout' && stream !== 'stderr')
    throw new CriError('INVALID_ARGUMENT', `unexpected stream type ${JSON.stringify(stream)}`);
  const third = buf.indexOf(SPACE, second + 1);
  // An empty F line may be written as "... stdout F" with no trailing space by some runtimes.
  const tagEnd = third < 0 ? buf.length : third;
  const tags = buf.toString('latin1', second + 1, tagEnd);
  if (tags === '') throw new CriError('INVALID_ARGUMENT', 'log tag is not found');
  const partial = tags.split(':')[0] === 'P';
  let content = third < 0 ? Buffer.alloc(0) : buf.subarray(third + 1);
  if (content.length > 0 && content[content.length - 1] === 0x0a) content = content.subarray(0, content.length - 1);
  return { timestamp, timeNs, stream, partial, content };
}

/** Formats a record as a runtime writes it (for tests and tools). */
export function formatCriLogLine(record: { timestamp: string; stream: LogStream; partial?: boolean; content: string | Buffer }): Buffer {
  const content = typeof record.content === 'string' ? Buffer.from(record.content) : record.content;
  return Buffer.concat([
    Buffer.from(`${record.timestamp} ${record.stream} ${record.partial === true ? 'P' : 'F'} `),
    content,
    Buffer.from('\n'),
  ]);
}
