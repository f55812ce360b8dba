import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, jitter, noopLogger, systemClock } from '@kubelet-ts/common';
import { BOOTSTRAP_WAIT_TIMEOUT_MS, SignerName, TMP_PRIVATE_KEY_FILE } from './constants.js';
import { digestedName, kubeletClientUsages, makeCsrPem, nodeClientSubject } from './csr.js';
import { CertificateError } from './errors.js';
import { writeKubeconfigFromBootstrapping } from './kubeconfig.js';
import type { KubeconfigCluster } from './kubeconfig.js';
import { loadOrGenerateKeyFile, parsePrivateKeyPem } from './keys.js';
import { parseCertificateChain, requestCertificate, waitForCertificate } from './request.js';
import type { CsrApi } from './request.js';
import { createFileStore } from './store.js';
import type { CertificatePair } from './store.js';

/**
 * The client certificate (PEM) a kubeconfig authenticates with, resolved from
 * `client-certificate` or `client-certificate-data`; undefined when it has none. The kubelet
 * implements it with its API client's kubeconfig loader (this package parses no kubeconfig).
 */
export type ReadKubeconfigClientCertificate = (kubeconfigPath: string) => Promise<string | Buffer | undefined>;

export interface ClientConfigCheckOptions {
  kubeconfigPath: string;
  readClientCertificate: ReadKubeconfigClientCertificate;
  clock?: Pick<Clock, 'now'>;
  logger?: Logger;
}

/**
 * bootstrap.go isClientConfigStillValid: true when the kubeconfig exists and every certificate of
 * its client certificate is unexpired. A missing file is false; an unreadable or certificate-less
 * one is false too (logged: bootstrap replaces it); any other stat error is thrown.
 */
export async function isClientConfigStillValid(options: ClientConfigCheckOptions): Promise<boolean> {
  const { kubeconfigPath, clock = systemClock, logger = noopLogger } = options;
  try {
    await fs.stat(kubeconfigPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new CertificateError('STORE', `error reading existing bootstrap kubeconfig ${kubeconfigPath}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  let pem: string | Buffer | undefined;
  try {
    pem = await options.readClientCertificate(kubeconfigPath);
  } catch (err) {
    logger.warn('Unable to read existing bootstrap client config', { path: kubeconfigPath, err: errorMessage(err) });
    return false;
  }
  if (pem === undefined || pem.length === 0) {
    logger.warn('Existing bootstrap client config has no client certificate', { path: kubeconfigPath });
    return false;
  }
  let chain;
  try {
    chain = parseCertificateChain(pem.toString(), kubeconfigPath);
  } catch (err) {
    logger.warn('Unable to load TLS certificates from existing bootstrap client config', { path: kubeconfigPath, err: errorMessage(err) });
    return false;
  }
  const now = clock.now();
  for (const cert of chain) {
    if (now > Date.parse(cert.validTo)) {
      logger.warn('Part of the existing bootstrap client certificate is expired', { path: kubeconfigPath, notAfter: cert.validTo });
      return false;
    }
  }
  return true;
}

export interface LoadClientConfigOptions extends ClientConfigCheckOptions {
  certDir: string;
  /** The bootstrap kubeconfig's cluster. */
  cluster: KubeconfigCluster;
}

/**
 * bootstrap.go LoadClientConfig, the path with `rotateCertificates`: a valid kubeconfig is used as
 * it is (`bootstrap: false`); otherwise the kubeconfig is written now, pointing at the store's
 * current pair, and the certificate manager obtains that pair with the bootstrap credentials
 * (`bootstrap: true`).
 */
export async function loadClientConfig(options: LoadClientConfigOptions): Promise<{ bootstrap: boolean; pemPath: string }> {
  const pemPath = createFileStore({ certDir: options.certDir }).currentPath();
  if (await isClientConfigStillValid(options)) {
    (options.logger ?? noopLogger).info('Current kubeconfig file contents are still valid, no bootstrap necessary');
    return { bootstrap: false, pemPath };
  }
  await writeKubeconfigFromBootstrapping({ kubeconfigPath: options.kubeconfigPath, cluster: options.cluster, pemPath });
  (options.logger ?? noopLogger).info(
    'Use the bootstrap credentials to request a cert, and set kubeconfig to point to the certificate dir',
  );
  return { bootstrap: true, pemPath };
}

export interface LoadClientCertOptions extends LoadClientConfigOptions {
  nodeName: string;
  /** The CSR API with the bootstrap kubeconfig's credentials. */
  api: CsrApi;
  /** One `GET /healthz` with the bootstrap credentials; polled (2 s, jittered) for up to a minute before the CSR. */
  checkServer?: (signal: AbortSignal) => Promise<void>;
  /** Default 3600 s, as upstream. */
  timeoutMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

export interface LoadClientCertResult {
  /** False when the kubeconfig was valid and nothing was requested. */
  bootstrapped: boolean;
  pair?: CertificatePair;
}

/**
 * bootstrap.go LoadClientCert, the path without `rotateCertificates`: unless the kubeconfig is
 * still valid, requests `system:node:<node>` with the bootstrap credentials (the key reused from the
 * current pair or `kubelet-client.key.tmp`), waits for the certificate, stores it and writes the
 * kubeconfig that points at `kubelet-client-current.pem`.
 */
export async function loadClientCert(options: LoadClientCertOptions): Promise<LoadClientCertResult> {
  const { clock = systemClock, logger = noopLogger } = options;
  if (await isClientConfigStillValid(options)) {
    logger.info('Kubeconfig exists and is valid, skipping bootstrap', { path: options.kubeconfigPath });
    return { bootstrapped: false };
  }
  logger.info('Using bootstrap kubeconfig to generate TLS client cert, key and kubeconfig file');
  const store = createFileStore({ certDir: options.certDir, clock, logger });
  let keyPem = await store.current().then(
    (pair) => pair?.keyPem,
    () => undefined,
  );
  // The key waits in its own file until the CSR succeeds: the current path is the store's symlink.
  const tmpKeyPath = join(options.certDir, TMP_PRIVATE_KEY_FILE);
  if (keyPem === undefined || keyPem === '') {
    logger.info('No valid private key and/or certificate found, reusing existing private key or creating a new one');
    keyPem = (await loadOrGenerateKeyFile(tmpKeyPath, logger)).keyPem;
  }
  if (options.checkServer !== undefined) await waitForServer(options.checkServer, clock, logger, options.signal);

  const privateKey = parsePrivateKeyPem(keyPem);
  const subject = nodeClientSubject(options.nodeName);
  const csrPem = makeCsrPem(privateKey, subject);
  // v1.34 asks for the key's usages here too (no key encipherment for ECDSA), and hashes them into the name.
  const usages = kubeletClientUsages(privateKey);
  const { name, uid } = await requestCertificate({
    api: options.api,
    csrPem,
    name: digestedName(privateKey, subject, usages),
    signerName: SignerName.KubeAPIServerClientKubelet,
    usages,
    privateKey,
    clock,
    logger,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  logger.info('Waiting for client certificate to be issued', { csr: name });
  const certificatePem = await waitForCertificate({
    api: options.api,
    name,
    uid,
    timeoutMs: options.timeoutMs ?? BOOTSTRAP_WAIT_TIMEOUT_MS,
    clock,
    logger,
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
  const pair = await store.update(certificatePem, keyPem);
  await fs.rm(tmpKeyPath, { force: true }).catch((err: unknown) => {
    logger.info('Failed cleaning up private key file', { path: tmpKeyPath, err: errorMessage(err) });
  });
  await writeKubeconfigFromBootstrapping({
    kubeconfigPath: options.kubeconfigPath,
    cluster: options.cluster,
    pemPath: store.currentPath(),
  });
  return { bootstrapped: true, pair };
}

/** bootstrap.go waitForServer: tries every 2 s (jitter 0.2) for a minute; not reaching it is only logged. */
async function waitForServer(
  check: (signal: AbortSignal) => Promise<void>,
  clock: Clock,
  logger: Logger,
  signal?: AbortSignal,
): Promise<void> {
  const deadline = clock.now() + 60_000;
  for (;;) {
    const attempt = new AbortController();
    const timer = clock.setTimeout(() => attempt.abort(new Error('healthz timed out')), 1_000);
    try {
      await check(attempt.signal);
      return;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      logger.info('Failed to connect to apiserver', { err: errorMessage(err) });
    } finally {
      clock.clearTimeout(timer);
    }
    // The next try, or the minute's end if that comes first (wait.JitterUntil under a 1 min context).
    await clock.sleep(Math.min(jitter(2_000, 0.2), Math.max(0, deadline - clock.now())), signal);
    if (clock.now() >= deadline) {
      logger.info('Error waiting for apiserver to come up', { err: 'timed out waiting to connect to apiserver' });
      return;
    }
  }
}
