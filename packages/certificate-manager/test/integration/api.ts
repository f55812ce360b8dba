/**
 * What the integration tests need of the real API server, over @kubelet-ts/kube-client: clients for
 * the bootstrap kubeconfig (its token) and for a PEM file holding a client certificate and its key,
 * the CsrApi port over a client, and kubectl with the admin kubeconfig for the cleanup.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { noopLogger, systemClock } from '@kubelet-ts/common';
import { KubeClientError, createKubeClient, loadKubeconfig } from '@kubelet-ts/kube-client';
import type { ClusterConnection, HttpMethod, KubeClient } from '@kubelet-ts/kube-client';
import type { ControlPlaneEnv } from '@kubelet-ts/test-support';
import type { CsrApi, CsrWatchEvent } from '../../src/index.js';

const open: KubeClient[] = [];

function clientOver(connection: ClusterConnection): KubeClient {
  const userAgent = 'kubelet-ts-certificate-manager-test';
  const client = createKubeClient({
    connection,
    name: userAgent,
    userAgent,
    qps: -1,
    burst: 0,
    timeoutMs: 10_000,
    logger: noopLogger,
    clock: systemClock,
  });
  open.push(client);
  return client;
}

/** A client of a kubeconfig (the bootstrap one: a token). */
export async function kubeconfigClient(kubeconfig: string): Promise<KubeClient> {
  return clientOver(await loadKubeconfig(kubeconfig));
}

/** A client of a PEM file holding a certificate and its key, which has no kubeconfig: the connection by hand. */
export function certClient(cp: ControlPlaneEnv, pemFile: string): KubeClient {
  const pem = { file: pemFile };
  return clientOver({
    source: pemFile,
    server: cp.apiserver,
    certificateAuthority: { file: cp.caFile },
    clientCertificate: pem,
    clientKey: pem,
    skipTLSVerify: false,
  });
}

/** Closes the connections of every client made here (afterAll). */
export function closeClients(): void {
  for (const client of open.splice(0)) client.closeAllConnections();
}

/**
 * One request with a client of its own (the PEM file is read now: a rotated pair is used at once),
 * resolving to the status also when it is not 2xx.
 */
export async function request(
  cp: ControlPlaneEnv,
  credentials: { pemFile: string },
  method: HttpMethod,
  path: string,
): Promise<{ statusCode: number }> {
  const client = certClient(cp, credentials.pemFile);
  try {
    return await client.request({ method, path });
  } catch (err) {
    if (err instanceof KubeClientError && err.code === 'API_STATUS') return { statusCode: err.statusCode };
    throw err;
  } finally {
    client.closeAllConnections();
  }
}

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';

/** The CsrApi port over a client: POST, GET, and list-then-watch with `fieldSelector=metadata.name=<name>`. */
export function csrApiOver(client: KubeClient): CsrApi {
  return {
    create: (csr, signal) => client.create(CSRS, csr, { signal }),
    get: (name, signal) => client.get(`${CSRS}/${name}`, { signal }),
    watch: (name, signal) => watchOne(client, name, signal),
  };
}

async function* watchOne(client: KubeClient, name: string, signal: AbortSignal): AsyncIterable<CsrWatchEvent> {
  const fieldSelector = `metadata.name=${name}`;
  const list = (await client.list(CSRS, { query: { fieldSelector }, signal })) as {
    metadata: { resourceVersion: string };
    items: unknown[];
  };
  for (const item of list.items) yield { type: 'ADDED', object: item };
  yield* client.watch(CSRS, { fieldSelector, resourceVersion: list.metadata.resourceVersion }, signal);
}

const run = promisify(execFile);

/** kubectl with the admin kubeconfig (cleanup and checks the node identity may not make). */
export async function kubectl(cp: ControlPlaneEnv, ...args: string[]): Promise<string> {
  const { stdout } = await run(join(cp.upstreamBinDir, 'kubectl'), ['--kubeconfig', cp.kubeconfig, ...args], { encoding: 'utf8' });
  return stdout;
}
