// A minimal HTTPS client for these tests only, until @kubelet-ts/kube-client lands: the
// kubeconfigs of control-plane.sh name their CA, certificate and key files.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { Event } from '@kubelet-ts/api';
import type { EventPatch, EventSink } from '../../src/index.js';

export class ApiStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiStatusError';
  }
}

function kubeconfigField(text: string, field: string, file: string): string {
  const match = new RegExp(`^\\s*${field}:\\s*(\\S+)\\s*$`, 'm').exec(text);
  if (match?.[1] === undefined) throw new Error(`${file}: no ${field}`);
  return match[1];
}

export interface ApiClient {
  request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown>;
  close(): void;
}

export function apiClient(kubeconfig: string): ApiClient {
  const text = readFileSync(kubeconfig, 'utf8');
  const server = new URL(kubeconfigField(text, 'server', kubeconfig));
  const agent = new https.Agent({
    keepAlive: true,
    ca: readFileSync(kubeconfigField(text, 'certificate-authority', kubeconfig)),
    cert: readFileSync(kubeconfigField(text, 'client-certificate', kubeconfig)),
    key: readFileSync(kubeconfigField(text, 'client-key', kubeconfig)),
  });
  const request = (method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          agent,
          host: server.hostname,
          port: server.port,
          method,
          path,
          timeout: 10_000,
          headers: { accept: 'application/json', ...(data === undefined ? {} : { 'content-type': contentType }) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve(parsed);
            const s = parsed as { reason?: string; message?: string };
            reject(new ApiStatusError(status, s.reason ?? '', `${method} ${path}: ${status} ${s.message ?? ''}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on('error', reject);
      req.end(data);
    });
  return { request, close: () => agent.destroy() };
}

/** The EventSink port over the API client, as the kubelet's adapter will be (calls kept for assertions). */
export function eventSink(client: ApiClient, calls: string[]): EventSink {
  return {
    create(event: Event) {
      calls.push(`POST ${event.metadata.namespace}`);
      return client.request('POST', `/api/v1/namespaces/${event.metadata.namespace}/events`, event);
    },
    patch(namespace: string, name: string, patch: EventPatch) {
      calls.push(`PATCH ${namespace}/${name}`);
      return client.request('PATCH', `/api/v1/namespaces/${namespace}/events/${name}`, patch, 'application/strategic-merge-patch+json');
    },
  };
}
