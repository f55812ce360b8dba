// The conditional and range parts of Go's net/http serveContent (fs.go), for a file without an ETag:
// checkPreconditions, parseRange, and the multipart/byteranges framing.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { firstHeader } from './headers.js';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const alt = (names: readonly string[]): string => names.join('|');
// Go's http.ParseTime: TimeFormat (RFC 1123 in GMT), RFC 850 and ANSI C asctime, in that order.
const IMF_FIXDATE = new RegExp(`^(?:${alt(DAYS)}), (\\d{2}) (${alt(MONTHS)}) (\\d{4}) (\\d{1,2}):(\\d{2}):(\\d{2}) GMT$`);
const RFC850 = new RegExp(`^(?:${alt(LONG_DAYS)}), (\\d{2})-(${alt(MONTHS)})-(\\d{2}) (\\d{1,2}):(\\d{2}):(\\d{2}) (?:[A-Z]{3,4})$`);
const ASCTIME = new RegExp(`^(?:${alt(DAYS)}) (${alt(MONTHS)}) {1,2}(\\d{1,2}) (\\d{1,2}):(\\d{2}):(\\d{2}) (\\d{4})$`);

function utc(year: number, month: string, day: number, h: number, m: number, s: number): number | undefined {
  const mon = MONTHS.indexOf(month);
  const daysInMonth = new Date(Date.UTC(year, mon + 1, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth || h > 23 || m > 59 || s > 59) return undefined;
  const date = new Date(Date.UTC(2000, mon, day, h, m, s));
  date.setUTCFullYear(year);
  return date.getTime();
}

/** Go's http.ParseTime, in milliseconds since the epoch; undefined when no format matches. */
export function parseHttpTime(value: string): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) return utc(Number(m[3]), m[2] as string, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  m = RFC850.exec(value);
  if (m !== null) {
    const yy = Number(m[3]);
    return utc(yy >= 69 ? 1900 + yy : 2000 + yy, m[2] as string, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME.exec(value);
  if (m !== null) return utc(Number(m[6]), m[1] as string, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]));
  return undefined;
}

/** Go's TimeFormat, which Last-Modified uses. */
export const httpTime = (ms: number): string => new Date(ms).toUTCString();

type Cond = 'none' | 'true' | 'false';

const trim = (s: string): string => s.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');

/** Go's scanETag: a `"…"` or `W/"…"` ETag at the start of `s` and what follows it, or undefined. */
function scanETag(input: string): { etag: string; rest: string } | undefined {
  const s = trim(input);
  const start = s.startsWith('W/') ? 2 : 0;
  if (s.length - start < 2 || s[start] !== '"') return undefined;
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) return { etag: s.slice(0, i + 1), rest: s.slice(i + 1) };
    if (!(c === 0x21 || (c >= 0x23 && c <= 0x7e) || c >= 0x80)) return undefined;
  }
  return undefined;
}

/**
 * Walks an If-Match / If-None-Match list; `star` answers a `*`. The file has no ETag (Go's FileServer
 * sets none), so no listed tag ever matches.
 */
function etagList(header: string, star: Cond, otherwise: Cond): Cond {
  let rest = header;
  for (;;) {
    rest = trim(rest);
    if (rest.length === 0) break;
    if (rest[0] === ',') {
      rest = rest.slice(1);
      continue;
    }
    if (rest[0] === '*') return star;
    const scanned = scanETag(rest);
    if (scanned === undefined) break;
    rest = scanned.rest;
  }
  return otherwise;
}

/** Go's modtime.Truncate(time.Second): Last-Modified has whole seconds. */
const seconds = (ms: number): number => Math.floor(ms / 1000) * 1000;

const isGetOrHead = (req: IncomingMessage): boolean => req.method === 'GET' || req.method === 'HEAD';

/** Go's checkIfModifiedSince: `false` means not modified since the date given (answer 304). */
export function checkIfModifiedSince(req: IncomingMessage, modtimeMs: number): Cond {
  if (!isGetOrHead(req)) return 'none';
  const ims = firstHeader(req, 'if-modified-since') ?? '';
  if (ims === '' || modtimeMs === 0) return 'none';
  const t = parseHttpTime(ims);
  if (t === undefined) return 'none';
  return seconds(modtimeMs) <= t ? 'false' : 'true';
}

function checkIfUnmodifiedSince(req: IncomingMessage, modtimeMs: number): Cond {
  const ius = firstHeader(req, 'if-unmodified-since') ?? '';
  if (ius === '' || modtimeMs === 0) return 'none';
  const t = parseHttpTime(ius);
  if (t === undefined) return 'none';
  return seconds(modtimeMs) <= t ? 'true' : 'false';
}

function checkIfRange(req: IncomingMessage, modtimeMs: number): Cond {
  if (!isGetOrHead(req)) return 'none';
  const ir = firstHeader(req, 'if-range') ?? '';
  if (ir === '') return 'none';
  // An ETag never matches (there is none); a date must be the file's, to the second.
  if (scanETag(ir) !== undefined || modtimeMs === 0) return 'false';
  const t = parseHttpTime(ir);
  return t !== undefined && Math.floor(t / 1000) === Math.floor(modtimeMs / 1000) ? 'true' : 'false';
}

/**
 * Go's checkPreconditions (RFC 7232 section 6) for content without an ETag: `412` (If-Match,
 * If-Unmodified-Since), `304` (If-None-Match `*`, If-Modified-Since), or the Range header to honour
 * (empty when absent, or when If-Range does not match).
 */
export function checkPreconditions(req: IncomingMessage, modtimeMs: number): { done: 304 | 412 } | { range: string } {
  const ifMatch = firstHeader(req, 'if-match') ?? '';
  let cond: Cond = ifMatch === '' ? 'none' : etagList(ifMatch, 'true', 'false');
  if (cond === 'none') cond = checkIfUnmodifiedSince(req, modtimeMs);
  if (cond === 'false') return { done: 412 };
  const ifNoneMatch = firstHeader(req, 'if-none-match') ?? '';
  const noneMatch: Cond = ifNoneMatch === '' ? 'none' : etagList(ifNoneMatch, 'false', 'true');
  if (noneMatch === 'false') return { done: isGetOrHead(req) ? 304 : 412 };
  if (noneMatch === 'none' && checkIfModifiedSince(req, modtimeMs) === 'false') return { done: 304 };
  const range = firstHeader(req, 'range') ?? '';
  return { range: range !== '' && checkIfRange(req, modtimeMs) === 'false' ? '' : range };
}

export interface ByteRange {
  start: number;
  length: number;
}

/** Go's httpRange.contentRange. */
export const contentRange = (r: ByteRange, size: number): string => `bytes ${r.start}-${r.start + r.length - 1}/${size}`;

/** Go's strconv.ParseInt(s, 10, 64) for a non-negative value (a `+` sign allowed); undefined when it fails. */
function parseInt64(s: string): number | undefined {
  if (!/^\+?\d+$/.test(s) || BigInt(s.replace('+', '')) > 9223372036854775807n) return undefined;
  return Number(s.replace('+', ''));
}

/**
 * Go's parseRange (RFC 7233): the ranges of a `bytes=` header clipped to `size`; `invalid range` for a
 * malformed one, `no-overlap` when every range starts at or after the end.
 */
export function parseRange(header: string, size: number): ByteRange[] | 'invalid' | 'no-overlap' {
  if (header === '') return [];
  if (!header.startsWith('bytes=')) return 'invalid';
  const ranges: ByteRange[] = [];
  let noOverlap = false;
  for (const part of header.slice('bytes='.length).split(',')) {
    const ra = trim(part);
    if (ra === '') continue;
    const dash = ra.indexOf('-');
    if (dash < 0) return 'invalid';
    const start = trim(ra.slice(0, dash));
    const end = trim(ra.slice(dash + 1));
    if (start === '') {
      // A suffix: the last `end` bytes.
      const n = parseInt64(end);
      if (n === undefined) return 'invalid';
      const length = Math.min(n, size);
      ranges.push({ start: size - length, length });
      continue;
    }
    const first = parseInt64(start);
    if (first === undefined) return 'invalid';
    if (first >= size) {
      noOverlap = true;
      continue;
    }
    if (end === '') {
      ranges.push({ start: first, length: size - first });
      continue;
    }
    const lastAsked = parseInt64(end);
    if (lastAsked === undefined || first > lastAsked) return 'invalid';
    const last = Math.min(lastAsked, size - 1);
    ranges.push({ start: first, length: last - first + 1 });
  }
  if (noOverlap && ranges.length === 0) return 'no-overlap';
  return ranges;
}

/** The multipart/byteranges framing Go's mime/multipart writer puts around each range. */
export interface MultipartRanges {
  boundary: string;
  /** The head of part `i` (its delimiter and headers). */
  partHead(i: number): string;
  /** The closing delimiter. */
  tail: string;
  /** Content-Length of the whole body. */
  size: number;
}

export function multipartRanges(ranges: readonly ByteRange[], contentType: string, size: number): MultipartRanges {
  // Go's randomBoundary: 30 random bytes in hex.
  const boundary = randomBytes(30).toString('hex');
  const partHead = (i: number): string => {
    const r = ranges[i] as ByteRange;
    // Headers in sorted order, as textproto writes a MIMEHeader.
    return `${i === 0 ? '' : '\r\n'}--${boundary}\r\nContent-Range: ${contentRange(r, size)}\r\nContent-Type: ${contentType}\r\n\r\n`;
  };
  const tail = `\r\n--${boundary}--\r\n`;
  let total = Buffer.byteLength(tail);
  ranges.forEach((r, i) => (total += Buffer.byteLength(partHead(i)) + r.length));
  return { boundary, partHead, tail, size: total };
}
