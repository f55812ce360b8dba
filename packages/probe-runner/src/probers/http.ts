import http from 'node:http';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { ProbeOutcome } from '../types.js';

/** Upstream maxRespBodyLength: the body read is capped at 10 KiB. */
export const MAX_RESPONSE_BODY_BYTES = 10 * 1024;
/** Go's http.Client default: at most 10 redirects. */
const MAX_REDIRECTS = 10;

export interface HttpProbeRequest {
  url: URL;
  /** Header name → values, as sent (Host included when the spec sets one). */
  headers: Array<[string, string]>;
  timeoutMs: number;
}

/**
 * Upstream DoHTTPProbe with the kubelet's client: TLS without verification, no keep-alive,
 * redirects followed only to the same host (another host ends the probe with a warning, which
 * counts as success), 2xx–3xx succeed, the body read is capped at 10 KiB, and the whole exchange
 * (redirects and body included) is bounded by the timeout.
 */
export async function doHttpProbe(request: HttpProbeRequest, signal?: AbortSignal): Promise<ProbeOutcome> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('timeout')), request.timeoutMs);
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const firstHost = request.url.hostname;
  let url = request.url;
  let headers = request.headers;
  try {
    for (let redirects = 0; ; redirects++) {
      let res: IncomingMessage;
      try {
        res = await send(url, headers, controller.signal);
      } catch (err) {
        return { result: 'failure', output: goClientError(url, err, controller.signal.aborted) };
      }
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (isRedirect(status) && location !== undefined && location !== '') {
        res.resume();
        const next = new URL(location, url);
        // Upstream RedirectChecker(followNonLocalRedirects=false): another host ends the redirects.
        if (next.hostname === firstHost && redirects < MAX_REDIRECTS) {
          // Go keeps a custom Host header only through a relative redirect.
          const relative = !/^[a-z][a-z0-9+.-]*:/i.test(location) && !location.startsWith('//');
          if (!relative) headers = headers.filter(([name]) => name.toLowerCase() !== 'host');
          url = next;
          continue;
        }
        if (redirects >= MAX_REDIRECTS)
          return { result: 'failure', output: `Get ${JSON.stringify(next.toString())}: stopped after 10 redirects` };
        let body: string;
        try {
          body = await readBody(res, controller.signal);
        } catch (err) {
          return { result: 'failure', output: goClientError(url, err, controller.signal.aborted) };
        }
        return { result: 'warning', output: `Probe terminated redirects, Response body: ${body}` };
      }
      let body: string;
      try {
        body = await readBody(res, controller.signal);
      } catch (err) {
        return { result: 'failure', output: goClientError(url, err, controller.signal.aborted) };
      }
      if (status >= 200 && status < 400) {
        if (status >= 300) return { result: 'warning', output: `Probe terminated redirects, Response body: ${body}` };
        return { result: 'success', output: body };
      }
      // Upstream: the failure message must not contain the response body (issue 99425).
      return { result: 'failure', output: `HTTP probe failed with statuscode: ${status}` };
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function send(url: URL, headers: Array<[string, string]>, signal: AbortSignal): Promise<IncomingMessage> {
  const grouped: Record<string, string | string[]> = {};
  for (const [name, value] of headers) {
    const existing = grouped[name];
    if (existing === undefined) grouped[name] = value;
    else grouped[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  const secure = url.protocol === 'https:';
  const options: https.RequestOptions = {
    method: 'GET',
    headers: grouped,
    signal,
    agent: false,
    ...(secure ? { rejectUnauthorized: false } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(url, options, resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readBody(res: IncomingMessage, signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    const done = (): void => {
      res.removeAllListeners('data');
      resolve(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY_BYTES).toString('utf8'));
    };
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      // Upstream: a longer body is truncated, not an error.
      if (size >= MAX_RESPONSE_BODY_BYTES) {
        done();
        res.destroy();
      }
    });
    res.once('end', done);
    res.once('error', (err) => (signal.aborted || size < MAX_RESPONSE_BODY_BYTES ? reject(err) : done()));
    res.once('aborted', () => reject(new Error('response aborted')));
  });
}

/** Formats a client error the way Go's http.Client reports it (what upstream shows as the probe's output). */
function goClientError(url: URL, err: unknown, timedOut: boolean): string {
  const prefix = `Get ${JSON.stringify(url.toString())}`;
  if (timedOut) return `${prefix}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`;
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  const addr = e.address !== undefined ? joinHostPort(e.address, e.port ?? 0) : url.host;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `${prefix}: dial tcp ${addr}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `${prefix}: dial tcp ${addr}: connect: no route to host`;
    case 'ENETUNREACH':
      return `${prefix}: dial tcp ${addr}: connect: network is unreachable`;
    case 'ECONNRESET':
      return `${prefix}: read: connection reset by peer`;
    case 'ENOTFOUND':
      return `${prefix}: dial tcp: lookup ${url.hostname}: no such host`;
    default:
      return `${prefix}: ${e.message ?? String(err)}`;
  }
}

/** net.JoinHostPort: brackets IPv6 literals. */
export function joinHostPort(host: string, port: number): string {
  return net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
}
