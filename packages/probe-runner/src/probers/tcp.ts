import net from 'node:net';
import type { ProbeOutcome } from '../types.js';
import { joinHostPort } from './http.js';

/**
 * Upstream DoTCPProbe: success when a TCP connection opens within the timeout (it is closed at
 * once); any error, the timeout included, is a failure with Go's dial error as the output.
 */
export function doTcpProbe(host: string, port: number, timeoutMs: number, signal?: AbortSignal): Promise<ProbeOutcome> {
  const addr = joinHostPort(host, port);
  return new Promise((resolve) => {
    let settled = false;
    const socket = net.connect({ host, port });
    const finish = (outcome: ProbeOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ result: 'failure', output: `dial tcp ${addr}: i/o timeout` }), timeoutMs);
    const onAbort = (): void => finish({ result: 'failure', output: `dial tcp ${addr}: operation was canceled` });
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => finish({ result: 'success', output: '' }));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const text =
        err.code === 'ECONNREFUSED'
          ? 'connect: connection refused'
          : err.code === 'EHOSTUNREACH'
            ? 'connect: no route to host'
            : err.code === 'ENETUNREACH'
              ? 'connect: network is unreachable'
              : err.message;
      finish({ result: 'failure', output: `dial tcp ${addr}: ${text}` });
    });
  });
}
