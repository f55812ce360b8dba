import { ServerResponse } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/** The connection of an upgrade request (`Connection: Upgrade`), for a handler that takes it over. */
export interface UpgradeConnection {
  socket: Duplex;
  /** Bytes the client sent after the request's headers. */
  head: Buffer;
}

const connections = new WeakMap<IncomingMessage, UpgradeConnection>();

/**
 * Lets upgrade (and CONNECT) requests reach the server's request listeners like any other request, with a
 * response written straight on their socket (node hands such requests only to `'upgrade'`
 * listeners). A handler that proxies the connection claims it with `takeUpgrade`; any other
 * handler answers as usual and the connection closes after its response, as nothing else can follow
 * an upgrade request on it. Upgraded sockets are tracked so that the server's close ends them.
 */
export function serveUpgradeRequests(server: Server): { destroyAll(): void } {
  const open = new Set<Duplex>();
  const serve = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    connections.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.once('finish', () => {
      if (!connections.has(req)) return;
      connections.delete(req);
      res.detachSocket(socket as never);
      socket.end();
    });
    server.emit('request', req, res);
  };
  server.on('upgrade', serve);
  // A CONNECT request goes to 'connect' listeners only (node destroys its socket when there is none);
  // Go's server hands it to the handler like any other, so that it gets the router's answer.
  server.on('connect', serve);
  return {
    destroyAll() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}

/** The connection of `req` if it arrived as an upgrade request that no handler has claimed yet. */
export function pendingUpgrade(req: IncomingMessage): UpgradeConnection | undefined {
  return connections.get(req);
}

/**
 * Takes the connection of an upgrade request away from its response: the caller now owns the socket
 * and writes the raw protocol on it. Undefined for a request that was not an upgrade.
 */
export function takeUpgrade(req: IncomingMessage, res: ServerResponse): UpgradeConnection | undefined {
  const connection = connections.get(req);
  if (connection === undefined) return undefined;
  connections.delete(req);
  res.detachSocket(connection.socket as never);
  return connection;
}
