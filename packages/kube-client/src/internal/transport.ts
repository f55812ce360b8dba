// The one keep-alive HTTP(S) agent of a client, rebuilt when its TLS material or token file changes.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { ClusterConnection, TlsMaterial } from '../kubeconfig.js';

export interface TransportRequest {
  method: string;
  /** Path and query, joined to the server URL (whose path prefix is kept). */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  signal: AbortSignal;
}

export interface TransportResponse {
  statusCode: number;
  headers: http.IncomingHttpHeaders;
  body: AsyncIterable<Buffer>;
  /** Drops the rest of the body and the connection it is on (a stream the caller stops reading). */
  destroy(): void;
}

/** What the REST client needs from the wire; unit tests substitute a fake. */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Closes every connection (in use or idle), as kubelet's closeAllConns after heartbeat failures. */
  closeAll(): void;
  /** Connections opened since the client was made (TLS handshakes for https). */
  connectionsOpened(): number;
}

/** A request that got no response; `reusedSocket` says it went out on a kept-alive connection. */
export class SendError extends Error {
  constructor(
    override readonly cause: Error,
    readonly reusedSocket: boolean,
  ) {
    super(cause.message);
    this.name = 'SendError';
  }
}

export interface HttpsTransportOptions {
  connection: ClusterConnection;
  clock: Clock;
  logger: Logger;
  /** How often, at most, the TLS and token files are checked for changes (ms). */
  reloadCheckMs: number;
}

/**
 * Idle sockets are closed after this long: below kube-apiserver's 90 s IdleTimeout, so a request never
 * goes out on a connection the server is closing.
 */
const FREE_SOCKET_TIMEOUT_MS = 60_000;
/** Idle connections kept per client (client-go: MaxIdleConnsPerHost 25). */
const MAX_FREE_SOCKETS = 25;

interface Material {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  /** dev:ino:size:mtime of every file read, to notice a change. */
  stamp: string;
}

const fileStamp = (file: string): string => {
  try {
    const s = fs.statSync(file);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

function stampOf(connection: ClusterConnection): string {
  const files = [connection.certificateAuthority, connection.clientCertificate, connection.clientKey]
    .map((m) => (m !== undefined && 'file' in m ? m.file : undefined))
    .concat(connection.tokenFile);
  return files.map((f) => (f === undefined ? '' : fileStamp(f))).join('|');
}

function readMaterial(connection: ClusterConnection): Material {
  const stamp = stampOf(connection);
  const read = (m: TlsMaterial | undefined): Buffer | undefined =>
    m === undefined ? undefined : 'data' in m ? m.data : fs.readFileSync(m.file);
  const token = connection.tokenFile !== undefined ? fs.readFileSync(connection.tokenFile, 'utf8').trim() : connection.token;
  const material: Material = { stamp };
  const ca = read(connection.certificateAuthority);
  const cert = read(connection.clientCertificate);
  const key = read(connection.clientKey);
  if (ca !== undefined) material.ca = ca;
  if (cert !== undefined) material.cert = cert;
  if (key !== undefined) material.key = key;
  if (token !== undefined && token !== '') material.token = token;
  return material;
}

export function createHttpsTransport(options: HttpsTransportOptions): Transport {
  const { connection, clock, logger } = options;
  const server = new URL(connection.server);
  const secure = server.protocol === 'https:';
  const prefix = server.pathname.replace(/\/$/, '');
  let material = readMaterial(connection);
  let lastCheck = clock.now();
  let opened = 0;
  const seen = new WeakSet<Socket>();

  const makeAgent = (m: Material): http.Agent => {
    const common = { keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS, timeout: FREE_SOCKET_TIMEOUT_MS, scheduling: 'lifo' as const };
    if (!secure) return new http.Agent(common);
    return new https.Agent({
      ...common,
      ...(m.ca !== undefined ? { ca: m.ca } : {}),
      ...(m.cert !== undefined ? { cert: m.cert } : {}),
      ...(m.key !== undefined ? { key: m.key } : {}),
      rejectUnauthorized: !connection.skipTLSVerify,
      ...(connection.serverName !== undefined ? { servername: connection.serverName } : {}),
    });
  };
  let agent = makeAgent(material);

  // Certificate rotation writes new files: notice it (at most every reloadCheckMs), then start over on
  // a new agent and close the old one's connections, as the upstream kubelet does on rotation.
  const refresh = (): void => {
    const now = clock.now();
    if (now - lastCheck < options.reloadCheckMs) return;
    lastCheck = now;
    if (stampOf(connection) === material.stamp) return;
    let next: Material;
    try {
      next = readMaterial(connection);
    } catch (err) {
      logger.warn('Cannot reload the client credentials, keeping the current ones', { source: connection.source, err: errorMessage(err) });
      return;
    }
    const tlsChanged = !sameBuffer(next.ca, material.ca) || !sameBuffer(next.cert, material.cert) || !sameBuffer(next.key, material.key);
    material = next;
    if (!tlsChanged) return;
    logger.info('Client credentials changed on disk, reconnecting', { source: connection.source });
    const old = agent;
    agent = makeAgent(material);
    old.destroy();
  };

  return {
    send(request) {
      refresh();
      const headers = { ...request.headers };
      if (material.token !== undefined) headers.authorization = `Bearer ${material.token}`;
      if (request.body !== undefined) headers['content-length'] = String(request.body.length);
      const module = secure ? https : http;
      return new Promise<TransportResponse>((resolve, reject) => {
        const req = module.request(
          {
            protocol: server.protocol,
            hostname: server.hostname.replace(/^\[(.*)\]$/, '$1'),
            port: server.port === '' ? (secure ? 443 : 80) : Number(server.port),
            method: request.method,
            path: prefix + request.path,
            headers,
            agent,
            signal: request.signal,
          },
          (res) => {
            resolve({
              statusCode: res.statusCode ?? 0,
              headers: res.headers,
              body: res,
              destroy: () => {
                res.destroy();
                req.destroy();
              },
            });
          },
        );
        req.on('socket', (socket: Socket) => {
          if (seen.has(socket)) return;
          seen.add(socket);
          opened++;
        });
        req.on('error', (err) => reject(new SendError(err, req.reusedSocket)));
        req.end(request.body);
      });
    },
    closeAll() {
      const old = agent;
      agent = makeAgent(material);
      old.destroy();
    },
    connectionsOpened: () => opened,
  };
}

function sameBuffer(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}
