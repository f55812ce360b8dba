import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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

export function createKubeletHttpServer(options: KubeletHttpServerOptions): KubeletHttpServer {
  const logger = (options.logger ?? noopLogger).child({ server: options.name ?? 'http' });
  const { router } = options;
  let server: Server | undefined;
  let upgrades: { destroyAll(): void } | undefined;

  return {
    router,
    async listen(host, port) {
      if (server !== undefined) throw new ServerError('ALREADY_LISTENING', `${options.name ?? 'http'} server is already listening`);
      const s = (options.createServer ?? ((listener) => createServer(listener)))(router.listener);
      server = s;
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
