// Upstream `/logs/` (enableSystemLogHandler): http.StripPrefix("/logs/", http.FileServer(http.Dir("/var/log/"))).
import { createReadStream, promises as fs } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { errorMessage } from '@kubelet-ts/common';
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

async function listDirectory(res: ServerResponse, dir: string): Promise<void> {
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
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
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
 * HTML list of its entries (directories with a trailing `/`; a directory asked without one is
 * redirected to it), a file with its length and a content type from its extension or its first bytes.
 * The path is decoded and cleaned before it is joined to `dir`, so `..` (plain or escaped) never leaves
 * it; symbolic links inside are followed, as upstream's are (`/var/log/containers` is made of them).
 */
export function installNodeLogs(router: Pick<Router, 'get'>, options: NodeLogsOptions): void {
  const root = path.resolve(options.dir);
  router.get('/logs/*', async (req, res, { rest, logger }) => {
    const segments = pathSegments(rest);
    if (segments === undefined || segments.some((s) => s.includes('\0'))) return sendText(res, 400, '400 Bad Request\n');
    const requested = `/${segments.join('/')}`;
    const clean = path.posix.normalize(requested);
    const file = path.join(root, clean);
    let stat;
    try {
      stat = await fs.stat(file);
    } catch (err) {
      return sendFileError(res, err);
    }
    if (stat.isDirectory()) {
      if (!requested.endsWith('/')) {
        const base = clean === '/' ? '' : path.posix.basename(clean);
        res.writeHead(301, { Location: `${base === '' ? '.' : encodeURIComponent(base)}/` });
        return void res.end();
      }
      return listDirectory(res, file).catch((err: unknown) => sendFileError(res, err));
    }
    if (!stat.isFile()) return sendText(res, 404, '404 page not found\n');
    let type: string;
    try {
      type = await contentType(file);
    } catch (err) {
      return sendFileError(res, err);
    }
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': stat.size,
      'Last-Modified': stat.mtime.toUTCString(),
      'Accept-Ranges': 'none',
    });
    if (req.method === 'HEAD' || stat.size === 0) return void res.end();
    // A growing log is sent up to the length announced: what was there when the request came.
    await pipeline(createReadStream(file, { start: 0, end: stat.size - 1 }), res).catch((err: unknown) => {
      logger.warn('Node log read failed', { file, err: errorMessage(err) });
      res.destroy();
    });
  });
}
