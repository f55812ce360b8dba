// Upstream proxyStream: apimachinery's UpgradeAwareHandler with upgradeRequired, towards the URL the
// runtime's streaming server gave for an exec, attach or port-forward.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect as connectTcp } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { Duplex } from 'node:stream';
import { errorMessage } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { sendText } from '../router.js';
import { pendingUpgrade, takeUpgrade } from './upgrade.js';

/** The most a streaming server's response head may take before the proxy gives up on it. */
const MAX_RESPONSE_HEAD_BYTES = 64 * 1024;
/** How long an error response of the streaming server may take to pass on (upstream: 10s). */
const ERROR_RESPONSE_DEADLINE_MS = 10_000;
/** Headers not passed to the streaming server: the kubelet's credentials are no business of the runtime's. */
const DROPPED_HEADERS = new Set(['authorization', 'x-forwarded-for']);

/** upstream's responder: every proxy failure is a 500 with the error's text (Go's http.Error). */
const fail = (res: ServerResponse, message: string): void => sendText(res, 500, `${message}\n`);

function dial(target: URL): Promise<Duplex> {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const socket =
      target.protocol === 'https:'
        ? connectTls({ host, port, servername: host }, () => resolve(socket))
        : connectTcp({ host, port }, () => resolve(socket));
    socket.once('error', (err: Error) => reject(new Error(`dial tcp ${target.host}: ${err.message}`)));
  });
}

function requestHead(req: IncomingMessage, target: URL): string {
  const lines = [`${req.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`];
  let forwardedFor: string | undefined;
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    if (name.toLowerCase() === 'x-forwarded-for') forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
    if (DROPPED_HEADERS.has(name.toLowerCase())) continue;
    lines.push(`${name}: ${value}`);
  }
  const client = req.socket.remoteAddress;
  if (client !== undefined) lines.push(`X-Forwarded-For: ${forwardedFor === undefined ? client : `${forwardedFor}, ${client}`}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Reads the backend's response head; resolves with its status and every byte read so far. */
function readResponseHead(backend: Duplex): Promise<{ status: number; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    let bytes = Buffer.alloc(0);
    const done = (err?: Error, status?: number): void => {
      backend.off('data', onData);
      backend.off('error', onError);
      backend.off('end', onEnd);
      backend.pause();
      if (err !== undefined) reject(err);
      else resolve({ status: status as number, bytes });
    };
    const onData = (chunk: Buffer): void => {
      bytes = Buffer.concat([bytes, chunk]);
      const end = bytes.indexOf('\r\n\r\n');
      if (end < 0) {
        if (bytes.length > MAX_RESPONSE_HEAD_BYTES) done(new Error('malformed HTTP response: header too long'));
        return;
      }
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(bytes.subarray(0, end).toString('latin1'));
      if (match === null)
        done(new Error(`malformed HTTP response ${JSON.stringify(bytes.subarray(0, Math.min(end, 80)).toString('latin1'))}`));
      else done(undefined, Number(match[1]));
    };
    const onError = (err: Error): void => done(err);
    const onEnd = (): void => done(new Error('unexpected EOF'));
    backend.on('data', onData);
    backend.once('error', onError);
    backend.once('end', onEnd);
  });
}

/** Pipes both ways until either side ends or fails, then closes both (upstream: the first copy to finish ends the proxy). */
function splice(client: Duplex, backend: Duplex): void {
  const closeBoth = (): void => {
    client.destroy();
    backend.destroy();
  };
  for (const side of [client, backend]) {
    side.once('close', closeBoth);
    side.once('end', closeBoth);
    side.on('error', closeBoth);
  }
  client.pipe(backend);
  backend.pipe(client);
}

/**
 * Proxies an upgrade request (SPDY or WebSocket) to the runtime's streaming server at `target`: the
 * request goes with the target's path and the client's headers, the server's answer comes back raw,
 * then bytes flow both ways until one side closes. A request that is not an upgrade gets 500
 * `Upgrade request required`; a server that cannot be reached or answers neither 101 nor an error
 * status gets 500 with the reason, as upstream's proxy answers.
 */
export async function proxyStream(req: IncomingMessage, res: ServerResponse, target: URL, logger: Logger): Promise<void> {
  const pending = pendingUpgrade(req);
  if (pending === undefined) return fail(res, 'Upgrade request required');
  let backend: Duplex;
  try {
    backend = await dial(target);
  } catch (err) {
    logger.error('Error while proxying request', { err: errorMessage(err), target: target.origin });
    return fail(res, errorMessage(err));
  }
  const dropBackend = (): void => {
    backend.destroy();
  };
  pending.socket.once('close', dropBackend);
  backend.on('error', () => undefined);
  let head: { status: number; bytes: Buffer };
  try {
    backend.write(requestHead(req, target));
    if (pending.head.length > 0) backend.write(pending.head);
    head = await readResponseHead(backend);
  } catch (err) {
    pending.socket.off('close', dropBackend);
    backend.destroy();
    logger.error('Error while proxying request', { err: errorMessage(err), target: target.origin });
    return fail(res, errorMessage(err));
  }
  pending.socket.off('close', dropBackend);
  if (head.status !== 101 && head.status < 400) {
    backend.destroy();
    logger.error('Proxy upgrade error', { status: head.status });
    return fail(res, `invalid upgrade response: status code ${head.status}`);
  }
  const client = takeUpgrade(req, res);
  if (client === undefined) {
    backend.destroy();
    return fail(res, 'request connection cannot be hijacked');
  }
  client.socket.write(head.bytes);
  if (head.status === 101) {
    splice(client.socket, backend);
    return;
  }
  // An error answer: pass it on for a while, then close (upstream writes the parsed response with a deadline).
  const timer = setTimeout(() => {
    client.socket.destroy();
    backend.destroy();
  }, ERROR_RESPONSE_DEADLINE_MS);
  timer.unref();
  backend.once('close', () => {
    clearTimeout(timer);
    client.socket.end();
  });
  backend.pipe(client.socket, { end: false });
}
