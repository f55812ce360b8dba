import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { noopLogger } from '@kubelet-ts/common';
import type { Logger } from '@kubelet-ts/common';
import { ServerError } from './errors.js';
import { serveUpgradeRequests } from './internal/upgrade.js';
import type { Router } from './router.js';

/** A server that can be started on an address and stopped. */
export interface KubeletHttpServer {
  /** Binds `host:port` (port 0 picks a free one) and resolves with the bound port. */
  listen(host: string, port: number): Promise<{ host: string; port: number }>;
  /** Stops accepting, ends open (keep-alive) connections and resolves when closed. Safe to call twice. */
  close(): Promise<void>;
  /** The router; add endpoints before or after listen(). */
  readonly router: Router;
}

export interface KubeletHttpServerOptions {
  router: Router;
  logger?: Logger;
  /**
   * Builds the node server around the request listener. Default: node:http createServer. The
   * authenticated kubelet server passes `(listener) => https.createServer(tlsOptions, listener)`.
   */
  createServer?: (listener: (req: IncomingMessage, res: ServerResponse) => void) => Server;
  /** Log name of the server (`healthz`, `read-only`). */
  name?: string;
}

/**
 * The most a request's line and headers may take: Go's http.DefaultMaxHeaderBytes (1 MiB), which every
 * kubelet server has (upstream sets `MaxHeaderBytes: 1 << 20` on the kubelet and read-only servers, and
 * the healthz server's http.ListenAndServe uses the default). Node's own default is 16 KiB.
 */
export const KUBELET_MAX_HEADER_BYTES = 1 << 20;

/** How long a refused connection is drained before it is closed (Go's net/http rstAvoidanceDelay). */
const RST_AVOIDANCE_DELAY_MS = 500;

// Go's net/http answers a request it cannot parse with these heads and a text body, then closes.
const ERROR_HEADERS = '\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n';

/** The status line text Go's server writes for a parse error node reports with `code`. */
function clientErrorStatus(code: unknown): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return '431 Request Header Fields Too Large';
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return '413 Request Entity Too Large';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return '408 Request Timeout';
    default:
      return '400 Bad Request';
  }
}

/**
 * Answers a request node's parser refused (malformed line or header, bad length, headers over the
 * limit) as Go's server does — `431 Request Header Fields Too Large`, else `400 Bad Request`, with that
 * text as body — instead of node's bodiless answer. A connection already reset or mid-response is closed.
 */
function answerClientError(err: Error & { code?: unknown }, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus(err.code);
  socket.end(`HTTP/1.1 ${status}${ERROR_HEADERS}${status}`);
  // Go's closeWriteAndWait: keep reading (and dropping) what the client still sends for a while, so that
  // closing with its bytes unread does not reset the connection before it has read the answer.
  socket.on('data', () => undefined);
  socket.resume();
  setTimeout(() => socket.destroy(), RST_AVOIDANCE_DELAY_MS).unref();
}

export function createKubeletHttpServer(options: KubeletHttpServerOptions): KubeletHttpServer {
  const logger = (options.logger ?? noopLogger).child({ server: options.name ?? 'http' });
  const { router } = options;
  let server: Server | undefined;
  let upgrades: { destroyAll(): void } | undefined;

  return {
    router,
    async listen(host, port) {
      if (server !== undefined) throw new ServerError('ALREADY_LISTENING', `${options.name ?? 'http'} server is already listening`);
      const s = (options.createServer ?? ((listener) => createServer({ maxHeaderSize: KUBELET_MAX_HEADER_BYTES }, listener)))(
        router.listener,
      );
      server = s;
      s.on('clientError', answerClientError);
      upgrades = serveUpgradeRequests(s);
      await new Promise<void>((resolve, reject) => {
        const onError = (err: Error): void => {
          server = undefined;
          reject(new ServerError('LISTEN_FAILED', `cannot listen on ${host}:${port}: ${err.message}`, { cause: err }));
        };
        s.once('error', onError);
        s.listen(port, host, () => {
          s.off('error', onError);
          resolve();
        });
      });
      s.on('error', (err) => logger.error('server error', { err: err.message }));
      const address = s.address() as AddressInfo;
      logger.info('listening', { address: address.address, port: address.port });
      return { host: address.address, port: address.port };
    },
    async close() {
      const s = server;
      if (s === undefined) return;
      server = undefined;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
        upgrades?.destroyAll();
      });
      logger.info('stopped');
    },
  };
}
