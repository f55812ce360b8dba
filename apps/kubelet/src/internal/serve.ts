import type { Logger } from '@kubelet-ts/common';
import type { KubeletHttpServer } from '@kubelet-ts/server';

/** Starts a server when its port is set (0 = off), logging where it listens. */
export async function listenIfEnabled(name: string, create: () => KubeletHttpServer, host: string, port: number, logger: Logger): Promise<KubeletHttpServer | undefined> {
  if (port <= 0) return undefined;
  const server = create();
  const address = await server.listen(host, port);
  logger.info('Serving', { server: name, address: `${address.host}:${address.port}` });
  return server;
}
