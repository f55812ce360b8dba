// A minimal REST client for the integration tests, over node:https with a kubeconfig's client
// certificate (the files control-plane.sh writes). Failed calls throw an error carrying the
// Status's `statusCode` and `reason`, as the ports of this package expect.
import fs from 'node:fs';
import https from 'node:https';
import { parse } from 'yaml';

export interface RestResponse {
  statusCode: number;
  body: unknown;
}

export interface RestClient {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<RestResponse>;
  /** Like request, but a status >= 400 throws an error with `statusCode` and `reason`. */
  call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T>;
  close(): void;
}

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority': string } }[];
  users: { user: { 'client-certificate': string; 'client-key': string } }[];
}

export class ApiCallError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export function restClient(kubeconfigPath: string, userAgent = 'kubelet-ts-node-status-test'): RestClient {
  const config = parse(fs.readFileSync(kubeconfigPath, 'utf8')) as Kubeconfig;
  const cluster = config.clusters[0]?.cluster;
  const user = config.users[0]?.user;
  if (cluster === undefined || user === undefined) throw new Error(`${kubeconfigPath}: no cluster or user`);
  const server = new URL(cluster.server);
  const agent = new https.Agent({
    keepAlive: true,
    ca: fs.readFileSync(cluster['certificate-authority']),
    cert: fs.readFileSync(user['client-certificate']),
    key: fs.readFileSync(user['client-key']),
  });
  const request = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RestResponse> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          agent,
          host: server.hostname,
          port: server.port,
          method,
          path,
          headers: {
            accept: 'application/json',
            'user-agent': userAgent,
            ...(payload === undefined ? {} : { 'content-type': contentType }),
          },
          timeout: 20_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = text === '' ? undefined : JSON.parse(text);
            } catch {
              // not JSON: keep the text
            }
            resolve({ statusCode: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(payload);
    });
  return {
    request,
    async call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
      const res = await request(method, path, body, contentType);
      if (res.statusCode >= 400) {
        const status = (typeof res.body === 'object' && res.body !== null ? res.body : {}) as { reason?: string; message?: string };
        throw new ApiCallError(
          res.statusCode,
          status.reason ?? '',
          `${method} ${path}: ${res.statusCode} ${status.message ?? String(res.body)}`,
        );
      }
      return res.body as T;
    },
    close: () => agent.destroy(),
  };
}

/** Deletes a Node (admin), ignoring a missing one, and waits until it is gone. */
export async function deleteNode(admin: RestClient, name: string): Promise<void> {
  await admin.request('DELETE', `/api/v1/nodes/${name}`);
  for (let i = 0; i < 100; i++) {
    if ((await admin.request('GET', `/api/v1/nodes/${name}`)).statusCode === 404) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`node ${name} still there 10 s after its deletion`);
}

export const randomSuffix = (): string => Math.random().toString(36).slice(2, 8);
