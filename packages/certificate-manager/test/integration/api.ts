/**
 * What the integration tests need of the real API server, over node:https: the env file of
 * scripts/control-plane.sh, a CsrApi adapter (bearer token or client certificate), and kubectl for
 * the admin's cleanup. @kubelet-ts/kube-client is not on main yet; the kubelet's adapter lives there.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { CertificateSigningRequestBody, CsrApi, CsrWatchEvent } from '../../src/index.js';

export interface ControlPlane {
  envFile: string;
  apiserver: string;
  adminKubeconfig: string;
  bootstrapKubeconfig: string;
  bootstrapToken: string;
  caFile: string;
  caKeyFile: string;
  kubectl: string;
  /** The upstream kubelet binary, the reference for the CSR name. */
  upstreamKubelet: string;
}

/** The control plane's env file; a missing one fails the test, naming the file. */
export function controlPlane(): ControlPlane {
  const dir = process.env.KUBELET_TS_CONTROL_PLANE_DIR || '/run/kubelet-ts-control-plane';
  const envFile = join(dir, 'env');
  let text: string;
  try {
    text = readFileSync(envFile, 'utf8');
  } catch (err) {
    throw new Error(
      `The control plane is not running: cannot read ${envFile} (${String(err)}). Start it with scripts/control-plane.sh up.`,
    );
  }
  const env = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^(?:export\s+)?(KUBELET_TS_[A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) env.set(match[1] ?? '', (match[2] ?? '').replace(/^['"]|['"]$/g, ''));
  }
  const get = (key: string): string => {
    const value = env.get(key);
    if (value === undefined || value === '') throw new Error(`${envFile}: ${key} is not set`);
    return value;
  };
  return {
    envFile,
    apiserver: get('KUBELET_TS_APISERVER'),
    adminKubeconfig: get('KUBELET_TS_KUBECONFIG'),
    bootstrapKubeconfig: get('KUBELET_TS_BOOTSTRAP_KUBECONFIG'),
    bootstrapToken: get('KUBELET_TS_BOOTSTRAP_TOKEN'),
    caFile: get('KUBELET_TS_CA_FILE'),
    caKeyFile: get('KUBELET_TS_CA_KEY_FILE'),
    kubectl: join(get('KUBELET_TS_UPSTREAM_BIN_DIR'), 'kubectl'),
    upstreamKubelet: join(get('KUBELET_TS_UPSTREAM_BIN_DIR'), 'kubelet'),
  };
}

/** How a request authenticates: a bearer token, or a PEM file holding a client certificate and its key. */
export type Credentials = { token: string } | { pemFile: string };

export class HttpStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Response {
  statusCode: number;
  body: string;
}

export function request(
  cp: ControlPlane,
  credentials: Credentials,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<Response> {
  const url = new URL(path, cp.apiserver);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  // The cert file is read per request, as client-node does: a rotated pair is used at once.
  const tls = 'pemFile' in credentials ? { cert: readFileSync(credentials.pemFile), key: readFileSync(credentials.pemFile) } : {};
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method,
        ca: readFileSync(cp.caFile),
        ...tls,
        agent: false,
        headers: {
          accept: 'application/json',
          ...('token' in credentials ? { authorization: `Bearer ${credentials.token}` } : {}),
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
        ...(signal !== undefined ? { signal } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** The body of a 2xx response; any other status is an error with `statusCode` and `reason`, as kube-client's. */
export function json(response: Response, what: string): unknown {
  const parsed = (response.body === '' ? {} : JSON.parse(response.body)) as { reason?: string; message?: string };
  if (response.statusCode >= 300) {
    throw new HttpStatusError(
      response.statusCode,
      parsed.reason ?? '',
      `${what}: ${response.statusCode} ${parsed.message ?? response.body}`,
    );
  }
  return parsed;
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

/** The CsrApi port over node:https: POST, GET, and list-then-watch with `fieldSelector=metadata.name=<name>`. */
export function httpsCsrApi(cp: ControlPlane, credentials: () => Credentials): CsrApi {
  return {
    async create(csr: CertificateSigningRequestBody, signal) {
      return json(await request(cp, credentials(), 'POST', CSRS, csr, signal), 'create csr');
    },
    async get(name, signal) {
      return json(await request(cp, credentials(), 'GET', `${CSRS}/${name}`, undefined, signal), `get csr ${name}`);
    },
    watch(name, signal) {
      return watchOne(cp, credentials(), name, signal);
    },
  };
}

async function* watchOne(cp: ControlPlane, credentials: Credentials, name: string, signal: AbortSignal): AsyncIterable<CsrWatchEvent> {
  const selector = `fieldSelector=${encodeURIComponent(`metadata.name=${name}`)}`;
  const list = json(await request(cp, credentials, 'GET', `${CSRS}?${selector}`, undefined, signal), 'list csr') as {
    metadata: { resourceVersion: string };
    items: unknown[];
  };
  for (const item of list.items) yield { type: 'ADDED', object: item };
  const url = new URL(`${CSRS}?${selector}&watch=true&resourceVersion=${list.metadata.resourceVersion}`, cp.apiserver);
  const tls = 'pemFile' in credentials ? { cert: readFileSync(credentials.pemFile), key: readFileSync(credentials.pemFile) } : {};
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = https.get(url, {
      ca: readFileSync(cp.caFile),
      ...tls,
      agent: false,
      signal,
      headers: 'token' in credentials ? { authorization: `Bearer ${credentials.token}` } : {},
    });
    req.on('response', resolve);
    req.on('error', reject);
  });
  // Aborting the request (the waiter is done) errors the response stream: expected, not a failure.
  res.on('error', () => undefined);
  if (res.statusCode !== 200) throw new HttpStatusError(res.statusCode ?? 0, '', `watch csr ${name}: ${res.statusCode}`);
  const lines = createInterface({ input: res });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      yield JSON.parse(line) as CsrWatchEvent;
    }
  } finally {
    lines.close();
    res.destroy();
  }
}

const run = promisify(execFile);

/** kubectl with the admin kubeconfig (cleanup and checks the node identity may not make). */
export async function kubectl(cp: ControlPlane, ...args: string[]): Promise<string> {
  const { stdout } = await run(cp.kubectl, ['--kubeconfig', cp.adminKubeconfig, ...args], { encoding: 'utf8' });
  return stdout;
}
