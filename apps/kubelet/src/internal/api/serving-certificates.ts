/**
 * The serving certificate of the authenticated server (upstream InitializeTLS and the kubelet's
 * serverCertificateManager): with `serverTLSBootstrap`, one requested from the cluster (signer
 * `kubernetes.io/kubelet-serving`) for the node's addresses and rotated; with `tlsCertFile`, that pair,
 * reloaded when the files change (ReloadKubeletServerCertificateFile); else the self-signed pair in
 * --cert-dir.
 */
import { promises as fs } from 'node:fs';
import {
  SignerName,
  certificatePairFromPem,
  createCertificateManager,
  createFileStore,
  ensureSelfSignedPair,
  kubeletServingUsages,
  nodeServingTemplate,
} from '@kubelet-ts/certificate-manager';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage, noopMetrics } from '@kubelet-ts/common';
import type { KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import { certificateSigningRequestsApi } from '@kubelet-ts/kube-client';

export interface ServingPair {
  cert: string;
  key: string;
}

export interface ServingCertificates {
  /** The pair to serve; undefined until the cluster issued one (serverTLSBootstrap). */
  current(): ServingPair | undefined;
  /** Hears every new pair. Returns unsubscribe. */
  onChange(listener: (pair: ServingPair) => void): () => void;
  /** Requests and renews, or watches the files, until aborted. */
  run(signal: AbortSignal): Promise<void>;
}

export interface ServingCertificatesOptions {
  config: Pick<KubeletConfiguration, 'serverTLSBootstrap' | 'tlsCertFile' | 'tlsPrivateKeyFile'>;
  flags: Pick<KubeletFlags, 'certDir'>;
  nodeName: string;
  /** The node's addresses as last reported (upstream getLastObservedNodeAddresses). */
  nodeAddresses: () => ReadonlyArray<{ type: string; address: string }>;
  /** The kubelet's own client: serving CSRs go with the node's credentials. */
  client: Parameters<typeof certificateSigningRequestsApi>[0];
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
}

/** How often the tlsCertFile pair is read again (upstream's dynamic file content resyncs every minute). */
export const SERVING_FILE_CHECK_MS = 60_000;

export async function createServingCertificates(options: ServingCertificatesOptions): Promise<ServingCertificates> {
  const { config, clock, logger } = options;
  const listeners = new Set<(pair: ServingPair) => void>();
  const notify = (pair: ServingPair): void => {
    for (const listener of [...listeners]) listener(pair);
  };
  const onChange = (listener: (pair: ServingPair) => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const certFile = config.tlsCertFile ?? '';
  const keyFile = config.tlsPrivateKeyFile ?? '';

  if (config.serverTLSBootstrap === true) {
    const manager = createCertificateManager({
      store: createFileStore({
        certDir: options.flags.certDir,
        pairNamePrefix: 'kubelet-server',
        ...(certFile !== '' && keyFile !== '' ? { certFile, keyFile } : {}),
        clock,
        logger,
      }),
      nodeName: options.nodeName,
      csrApiFor: () => certificateSigningRequestsApi(options.client),
      signerName: SignerName.KubeletServing,
      template: () => nodeServingTemplate(options.nodeName, options.nodeAddresses()),
      usages: kubeletServingUsages,
      certificate: 'serving',
      exitAfterMs: 0,
      clock,
      logger: logger.child({ certificate: 'serving' }),
      metrics: options.metrics ?? noopMetrics,
    });
    manager.onRotation((pair) => notify({ cert: pair.certificatePem, key: pair.keyPem }));
    return {
      current() {
        const pair = manager.current();
        return pair === undefined ? undefined : { cert: pair.certificatePem, key: pair.keyPem };
      },
      onChange,
      run: (signal) => manager.run(signal),
    };
  }

  if (certFile !== '' || keyFile !== '') {
    const read = async (): Promise<ServingPair> => {
      const [cert, key] = await Promise.all([
        fs.readFile(certFile, 'utf8').catch((err: unknown) => {
          throw new Error(`tlsCertFile ${certFile}: ${errorMessage(err)}`, { cause: err });
        }),
        fs.readFile(keyFile, 'utf8').catch((err: unknown) => {
          throw new Error(`tlsPrivateKeyFile ${keyFile}: ${errorMessage(err)}`, { cause: err });
        }),
      ]);
      // A certificate that does not match its key, or no certificate at all, is refused here.
      certificatePairFromPem(cert, key, certFile);
      return { cert, key };
    };
    let current = await read();
    return {
      current: () => current,
      onChange,
      async run(signal) {
        while (!signal.aborted) {
          try {
            await clock.sleep(SERVING_FILE_CHECK_MS, signal);
          } catch {
            return;
          }
          let next: ServingPair;
          try {
            next = await read();
          } catch (err) {
            // Half-written files or a bad pair: keep serving the last good one.
            logger.error('Failed to reload the serving certificate files, keeping the current pair', { err: errorMessage(err) });
            continue;
          }
          if (next.cert === current.cert && next.key === current.key) continue;
          current = next;
          logger.info('Reloaded the serving certificate files', { certFile, keyFile });
          notify(next);
        }
      },
    };
  }

  // Upstream names the certificate after the node's hostname; the node name is that or its override.
  const pair = await ensureSelfSignedPair({ certDir: options.flags.certDir, host: options.nodeName, clock, logger });
  const selfSigned = { cert: pair.certificatePem, key: pair.keyPem };
  return {
    current: () => selfSigned,
    onChange,
    run: (signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
}
