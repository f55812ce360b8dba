// A minimal API client for integration tests (node:https, the kubeconfig's client certificate), until
// @kubelet-ts/kube-client serves them: a library under test must not depend on a client.
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';

export class KubeError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Record<string, unknown>;
}

export interface Kube {
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  /** Streams watch events until the signal aborts or the server ends the watch. */
  watch(path: string, onEvent: (event: WatchEvent) => void, signal: AbortSignal): Promise<void>;
}

function field(kubeconfig: string, name: string): string {
  const match = new RegExp(`^\\s*${name}:\\s*(\\S+)\\s*$`, 'm').exec(kubeconfig);
  if (match?.[1] === undefined) throw new Error(`kubeconfig has no ${name}`);
  return match[1];
}

/** A client for the kubeconfig's server and client certificate (the only shape control-plane.sh writes). */
export function kubeFromKubeconfig(file: string): Kube {
  const text = fs.readFileSync(file, 'utf8');
  const server = new URL(field(text, 'server'));
  const agent = new https.Agent({
    keepAlive: true,
    ca: fs.readFileSync(field(text, 'certificate-authority')),
    cert: fs.readFileSync(field(text, 'client-certificate')),
    key: fs.readFileSync(field(text, 'client-key')),
  });
  const open = (method: string, path: string, body: string | undefined, contentType: string, signal?: AbortSignal) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const req = https.request(
        {
          agent,
          host: server.hostname,
          port: server.port,
          method,
          path,
          // Content-Length always: Node does not frame the body of a DELETE by itself, and the server would not read it.
          headers: {
            Accept: 'application/json',
            ...(body !== undefined ? { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) } : {}),
          },
          signal,
        },
        resolve,
      );
      req.on('error', reject);
      req.end(body);
    });
  const readAll = async (res: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of res) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  return {
    async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
      const res = await open(method, path, body === undefined ? undefined : JSON.stringify(body), contentType);
      const text = await readAll(res);
      const json = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
      const code = res.statusCode ?? 0;
      if (code >= 300)
        throw new KubeError(code, String(json['reason'] ?? ''), `${method} ${path}: ${code} ${String(json['message'] ?? text)}`);
      return json as T;
    },
    async watch(path, onEvent, signal) {
      let res: IncomingMessage;
      try {
        res = await open('GET', path, undefined, '', signal);
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
      if ((res.statusCode ?? 0) >= 300) throw new Error(`watch ${path}: ${res.statusCode} ${await readAll(res)}`);
      let buffered = '';
      try {
        for await (const chunk of res) {
          buffered += (chunk as Buffer).toString('utf8');
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (line !== '') onEvent(JSON.parse(line) as WatchEvent);
          }
        }
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    },
  };
}

/** Polls until `probe` returns a value, or fails after `timeoutMs` naming `what`. */
export async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A Node kts-node for the test (the pod GC controller force-deletes pods bound to a node that does
 * not exist, after 40 s). Made only when missing; `release` deletes it only when this test made it.
 */
export async function ensureNode(admin: Kube, name: string, owner: string): Promise<{ release(): Promise<void> }> {
  try {
    await admin.request('POST', '/api/v1/nodes', {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubelet-ts.test/created-by': owner } },
    });
  } catch (err) {
    if (err instanceof KubeError && err.reason === 'AlreadyExists') return { release: async () => undefined };
    throw err;
  }
  return {
    async release() {
      const node = await admin
        .request<{ metadata: { labels?: Record<string, string>; uid: string } }>('GET', `/api/v1/nodes/${name}`)
        .catch(() => undefined);
      if (node?.metadata.labels?.['kubelet-ts.test/created-by'] !== owner) return;
      await admin.request('DELETE', `/api/v1/nodes/${name}`, { preconditions: { uid: node.metadata.uid } }).catch(() => undefined);
    },
  };
}
