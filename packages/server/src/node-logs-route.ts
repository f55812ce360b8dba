// Upstream `/logs/` (enableSystemLogHandler): http.StripPrefix("/logs/", http.FileServer(http.Dir("/var/log/"))).
import { createReadStream, promises as fs } from 'node:fs';
import type { Stats } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { errorMessage } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { checkIfModifiedSince, checkPreconditions, contentRange, httpTime, multipartRanges, parseRange } from './internal/serve-content.js';
import type { Router } from './router.js';
import { pathSegments, sendText } from './router.js';

export interface NodeLogsOptions {
  /** The directory served; upstream's is `/var/log`. */
  dir: string;
}

const CONTENT_TYPES: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.gz': 'application/gzip',
  '.xz': 'application/x-xz',
  '.zst': 'application/zstd',
};

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' })[c] as string);

/** What Go's DetectContentType says of a log's first bytes, in the two cases that matter here. */
function sniff(head: Buffer): string {
  for (const byte of head) {
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20 && byte !== 0x1b)) return 'application/octet-stream';
  }
  return 'text/plain; charset=utf-8';
}

async function contentType(file: string): Promise<string> {
  const known = CONTENT_TYPES[path.extname(file).toLowerCase()];
  if (known !== undefined) return known;
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(512);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return sniff(head.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

async function listDirectory(res: ServerResponse, dir: string, modtimeMs: number): Promise<void> {
  const entries = (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let body = '<!doctype html>\n<meta name="viewport" content="width=device-width">\n<pre>\n';
  for (const entry of entries) {
    let isDir = entry.isDirectory();
    if (entry.isSymbolicLink())
      isDir = await fs.stat(path.join(dir, entry.name)).then(
        (s) => s.isDirectory(),
        () => false,
      );
    const name = isDir ? `${entry.name}/` : entry.name;
    body += `<a href="${escapeHtml(encodeURI(name).replace(/[?#]/g, encodeURIComponent))}">${escapeHtml(name)}</a>\n`;
  }
  body += '</pre>\n';
  res.writeHead(200, {
    ...lastModified(modtimeMs),
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** Go's setLastModified: none for an unknown (zero or epoch) time. */
const lastModified = (modtimeMs: number): Record<string, string> => (modtimeMs === 0 ? {} : { 'Last-Modified': httpTime(modtimeMs) });

/** Go's localRedirect: a relative Location, keeping the query. */
function redirect(res: ServerResponse, url: URL, location: string): void {
  res.writeHead(301, { Location: `${location}${url.search}` });
  res.end();
}

/**
 * Copies `length` bytes of `file` from `start`: a growing log is sent up to what was announced; one cut
 * shorter since fails (Go's io.CopyN), so that the connection is dropped rather than left short.
 */
async function copyRange(file: string, start: number, length: number, res: ServerResponse): Promise<void> {
  if (length === 0) return;
  const source = createReadStream(file, { start, end: start + length - 1 });
  await pipeline(source, res, { end: false });
  if (source.bytesRead < length) throw new Error(`${file} ended after ${source.bytesRead} of ${length} bytes`);
}

/**
 * Go's serveContent for a file without an ETag: Last-Modified, the conditional headers (304, 412),
 * `Accept-Ranges: bytes`, and Range: one range is a 206 with Content-Range, several a 206
 * multipart/byteranges, none that overlaps the file a 416 with `Content-Range` `bytes *` over the size.
 */
async function serveFile(req: IncomingMessage, res: ServerResponse, file: string, stat: Stats, logger: Logger): Promise<void> {
  const modtimeMs = stat.mtimeMs === 0 ? 0 : stat.mtime.getTime();
  const size = stat.size;
  const preconditions = checkPreconditions(req, modtimeMs);
  if ('done' in preconditions) {
    // Go's writeNotModified keeps Last-Modified (there is no ETag); a 412 keeps it too.
    res.writeHead(preconditions.done, { ...lastModified(modtimeMs), ...(preconditions.done === 412 ? { 'Content-Length': 0 } : {}) });
    return void res.end();
  }
  const type = await contentType(file);
  let ranges = parseRange(preconditions.range, size);
  if (ranges === 'no-overlap' && size === 0) ranges = []; // Go: an empty file ignores the Range header
  if (ranges === 'no-overlap' || ranges === 'invalid') {
    // Go ≥ 1.23 serveError: Last-Modified is not sent with an error.
    const unsatisfiable = ranges === 'no-overlap';
    return sendText(
      res,
      416,
      unsatisfiable ? 'invalid range: failed to overlap\n' : 'invalid range\n',
      unsatisfiable ? { 'Content-Range': `bytes */${size}` } : {},
    );
  }
  // More bytes asked for than the file has: an attack or a confused client, served whole (as Go).
  if (ranges.reduce((sum, r) => sum + r.length, 0) > size) ranges = [];
  const headers: Record<string, string | number> = { ...lastModified(modtimeMs), 'Content-Type': type, 'Accept-Ranges': 'bytes' };
  const send = async (copy: () => Promise<void>): Promise<void> => {
    if (req.method === 'HEAD') return void res.end();
    try {
      await copy();
      res.end();
    } catch (err) {
      logger.warn('Node log read failed', { file, err: errorMessage(err) });
      res.destroy();
    }
  };
  const [only] = ranges;
  if (ranges.length === 0 || only === undefined) {
    res.writeHead(200, { ...headers, 'Content-Length': size });
    return send(() => copyRange(file, 0, size, res));
  }
  if (ranges.length === 1) {
    res.writeHead(206, { ...headers, 'Content-Range': contentRange(only, size), 'Content-Length': only.length });
    return send(() => copyRange(file, only.start, only.length, res));
  }
  const multipart = multipartRanges(ranges, type, size);
  res.writeHead(206, {
    ...headers,
    'Content-Type': `multipart/byteranges; boundary=${multipart.boundary}`,
    'Content-Length': multipart.size,
  });
  return send(async () => {
    for (const [i, r] of ranges.entries()) {
      res.write(multipart.partHead(i));
      await copyRange(file, r.start, r.length, res);
    }
    res.write(multipart.tail);
  });
}

/** Go's toHTTPError: not found 404, permission 403, anything else 500, each with Go's text. */
function sendFileError(res: ServerResponse, err: unknown): void {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP' || code === 'ENAMETOOLONG')
    return sendText(res, 404, '404 page not found\n');
  if (code === 'EACCES' || code === 'EPERM') return sendText(res, 403, '403 Forbidden\n');
  sendText(res, 500, '500 Internal Server Error\n');
}

/**
 * Installs `/logs/`: the node's log directory as Go's http.FileServer serves it — a directory as an
 * HTML list of its entries (directories with a trailing `/`; a directory asked without one, or a file
 * asked with one, is redirected), a file with its length, Last-Modified and a content type from its
 * extension or its first bytes, with Range and conditional requests as Go's serveContent answers them.
 * The path is decoded and cleaned before it is joined to `dir`, so `..` (plain or escaped) never leaves
 * it; symbolic links inside are followed, as upstream's are (`/var/log/containers` is made of them). The
 * query is ignored (upstream with NodeLogQuery off, its default), except that redirects keep it.
 */
export function installNodeLogs(router: Pick<Router, 'get'>, options: NodeLogsOptions): void {
  const root = path.resolve(options.dir);
  router.get('/logs/*', async (req, res, { url, rest, logger }) => {
    const segments = pathSegments(rest);
    if (segments === undefined || segments.some((s) => s.includes('\0'))) return sendText(res, 400, '400 Bad Request\n');
    const requested = `/${segments.join('/')}`;
    // Go's path.Clean: no `..` above the root, no trailing slash.
    const clean = path.posix.normalize(requested).replace(/(.)\/+$/, '$1');
    const file = path.join(root, clean);
    let stat: Stats;
    try {
      stat = await fs.stat(file);
    } catch (err) {
      return sendFileError(res, err);
    }
    const base = clean === '/' ? '' : path.posix.basename(clean);
    if (stat.isDirectory()) {
      if (!requested.endsWith('/')) return redirect(res, url, `${base === '' ? '.' : encodeURIComponent(base)}/`);
      const modtimeMs = stat.mtimeMs === 0 ? 0 : stat.mtime.getTime();
      if (checkIfModifiedSince(req, modtimeMs) === 'false') {
        res.writeHead(304, lastModified(modtimeMs));
        return void res.end();
      }
      return listDirectory(res, file, modtimeMs).catch((err: unknown) => sendFileError(res, err));
    }
    if (!stat.isFile()) return sendText(res, 404, '404 page not found\n');
    if (requested.endsWith('/') && base !== '') return redirect(res, url, `../${encodeURIComponent(base)}`);
    return serveFile(req, res, file, stat, logger).catch((err: unknown) => {
      if (!res.headersSent) sendFileError(res, err);
      else res.destroy();
    });
  });
}
