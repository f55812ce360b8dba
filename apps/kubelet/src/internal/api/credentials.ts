// The kubelet's credentials towards the API server (upstream buildKubeletClientConfig): the
// kubeconfig as it is, or TLS bootstrap through --bootstrap-kubeconfig, then rotation.
import { readFile } from 'node:fs/promises';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import type { CertificateManager } from '@kubelet-ts/certificate-manager';
import { createCertificateManager, createFileStore, loadClientCert } from '@kubelet-ts/certificate-manager';
import type { ClusterConnection, KubeClient, TlsMaterial } from '@kubelet-ts/kube-client';
import { certificateSigningRequestsApi, createKubeClient, loadKubeconfig } from '@kubelet-ts/kube-client';
import { KubeletApiError } from './errors.js';

export interface CredentialsOptions {
  kubeconfig: string;
  bootstrapKubeconfig?: string;
  certDir: string;
  rotateCertificates: boolean;
  nodeName: string;
  userAgent: string;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  signal: AbortSignal;
}

export interface Credentials {
  connection: ClusterConnection;
  /** Rotates the client certificate before it expires (bootstrap with rotateCertificates only). */
  certificateManager?: CertificateManager;
  /** Closes the CSR clients' connections (the bootstrap one is kept while rotation may need it). */
  close(): void;
}

/** The PEM of a connection's client certificate, for the bootstrap validity check. */
async function clientCertificateOf(kubeconfig: string): Promise<string | Buffer | undefined> {
  const material: TlsMaterial | undefined = (await loadKubeconfig(kubeconfig)).clientCertificate;
  if (material === undefined) return undefined;
  return 'data' in material ? material.data : readFile(material.file);
}

/** A client for the CSR calls of bootstrap and rotation: no rate limit, as upstream's certificate clients. */
function csrClient(connection: ClusterConnection, options: CredentialsOptions, name: string): KubeClient {
  return createKubeClient({
    connection,
    name,
    userAgent: options.userAgent,
    qps: -1,
    burst: 0,
    timeoutMs: 30_000,
    clock: options.clock,
    logger: options.logger.child({ component: 'certificate', client: name }),
  });
}

/**
 * Upstream: with --bootstrap-kubeconfig, the kubeconfig is kept while its client certificate is
 * valid; otherwise a certificate of `system:node:<node>` is requested with the bootstrap
 * credentials (CSR, approval, `<cert-dir>/kubelet-client-current.pem`) and the kubeconfig written
 * to point at it. With rotateCertificates that pair is then renewed at 70–90 % of its lifetime; the
 * clients re-read the file when it changes. Without --bootstrap-kubeconfig the kubeconfig is used
 * as it is (its certificate is not rotated here: upstream rotates it only through cert-dir).
 */
export async function resolveCredentials(options: CredentialsOptions): Promise<Credentials> {
  const { logger } = options;
  if (options.bootstrapKubeconfig === undefined || options.bootstrapKubeconfig === '') {
    return { connection: await loadKubeconfig(options.kubeconfig), close: () => undefined };
  }
  const bootstrapConnection = await loadKubeconfig(options.bootstrapKubeconfig).catch((err: unknown) => {
    throw new KubeletApiError('CREDENTIALS', `--bootstrap-kubeconfig: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  });
  const bootstrap = csrClient(bootstrapConnection, options, 'bootstrap');
  const caFile =
    bootstrapConnection.certificateAuthority !== undefined && 'file' in bootstrapConnection.certificateAuthority
      ? bootstrapConnection.certificateAuthority.file
      : undefined;
  const caData =
    bootstrapConnection.certificateAuthority !== undefined && 'data' in bootstrapConnection.certificateAuthority
      ? bootstrapConnection.certificateAuthority.data
      : undefined;
  await loadClientCert({
    kubeconfigPath: options.kubeconfig,
    certDir: options.certDir,
    nodeName: options.nodeName,
    cluster: {
      server: bootstrapConnection.server,
      ...(caFile !== undefined ? { certificateAuthority: caFile } : {}),
      ...(caData !== undefined ? { certificateAuthorityData: caData } : {}),
      ...(bootstrapConnection.skipTLSVerify ? { insecureSkipTlsVerify: true } : {}),
    },
    api: certificateSigningRequestsApi(bootstrap),
    checkServer: async (signal) => {
      await bootstrap.get('/version', { signal });
    },
    readClientCertificate: clientCertificateOf,
    clock: options.clock,
    logger: logger.child({ component: 'certificate' }),
    signal: options.signal,
  });
  const connection = await loadKubeconfig(options.kubeconfig);
  if (!options.rotateCertificates) {
    bootstrap.closeAllConnections();
    return { connection, close: () => undefined };
  }
  const current = csrClient(connection, options, 'certificate');
  const certificateManager = createCertificateManager({
    store: createFileStore({ certDir: options.certDir, clock: options.clock, logger }),
    nodeName: options.nodeName,
    // With a valid pair, its own credentials (the file the kubeconfig names); else the bootstrap token.
    csrApiFor: (pair) => certificateSigningRequestsApi(pair !== undefined ? current : bootstrap),
    clock: options.clock,
    logger: logger.child({ component: 'certificate' }),
    metrics: options.metrics,
  });
  return {
    connection,
    certificateManager,
    close: () => {
      bootstrap.closeAllConnections();
      current.closeAllConnections();
    },
  };
}
