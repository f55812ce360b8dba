import { createServer } from 'node:https';
import type { Server, ServerOptions } from 'node:https';
import { createSecureContext } from 'node:tls';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import { ServerError } from './errors.js';
import type { Logger } from '@kubelet-ts/common';
import type { Authenticator, Authorizer } from './auth.js';
import { createAuthFilter } from './auth-filter.js';
import { isClientCAProvider } from './client-ca.js';
import type { ClientCAProvider } from './client-ca.js';
import { createKubeletHttpServer, KUBELET_MAX_HEADER_BYTES } from './http-server.js';
import type { KubeletHttpServer } from './http-server.js';
import { parsePemCertificates } from './internal/pem.js';
import { tlsCiphers, tlsMinVersion } from './internal/tls.js';
import type { Router } from './router.js';

export interface KubeletServerTlsOptions {
  /**
   * PEM serving certificate (chain) and key (`tlsCertFile`, `tlsPrivateKeyFile`, a self-signed pair, or
   * the one a serving CSR got). Absent until one is issued: handshakes fail until `setCertificate`, as
   * upstream's `no serving certificate available for the kubelet`.
   */
  cert?: string | Buffer;
  key?: string | Buffer;
  /**
   * CA bundle for client certificates (`authentication.x509.clientCAFile`): PEM, or a provider whose
   * new bundles verify the handshakes that follow (createDynamicClientCA); unset: no certificate is
   * requested.
   */
  clientCA?: string | Buffer | ClientCAProvider;
  /** `tlsMinVersion`: `VersionTLS10` … `VersionTLS13`; default TLS 1.2. */
  minVersion?: string;
  /** `tlsCipherSuites`: Go's IANA names. */
  cipherSuites?: readonly string[];
}

export interface KubeletServerOptions {
  router: Router;
  tls: KubeletServerTlsOptions;
  authenticator: Authenticator;
  authorizer: Authorizer;
  nodeName: string;
  logger?: Logger;
}

export { KUBELET_MAX_HEADER_BYTES };

/** The authenticated server, whose serving certificate can be replaced while it runs. */
export interface KubeletServer extends KubeletHttpServer {
  /**
   * Serves new handshakes with this pair (a rotated serving certificate, a reloaded tlsCertFile);
   * connections already open keep theirs. Throws ServerError `INVALID_TLS_CONFIG` for a pair node
   * cannot use, and keeps the previous one.
   */
  setCertificate(pair: { cert: string | Buffer; key: string | Buffer }): void;
}

/**
 * The kubelet's authenticated server (`address:port`, 10250): https with the auth filter in front of the
 * router. A client certificate is requested (not required) when `clientCA` is set, as upstream's
 * `tls.RequestClientCert`. Timeouts follow upstream's http.Server: the whole request must arrive within 4h
 * (ReadTimeout), keep-alive connections idle out after 90s (IdleTimeout); responses are not limited, so
 * that log follows and other streams are not cut. Unknown TLS names throw ServerError `INVALID_TLS_CONFIG`.
 */
export function createKubeletServer(options: KubeletServerOptions): KubeletServer {
  const logger = options.logger ?? noopLogger;
  const { tls } = options;
  const provider = tls.clientCA !== undefined && isClientCAProvider(tls.clientCA) ? tls.clientCA : undefined;
  let clientCA = provider !== undefined ? provider.current() : (tls.clientCA as string | Buffer | undefined);
  if (clientCA !== undefined) parsePemCertificates(clientCA, 'clientCA');
  const minVersion = tlsMinVersion(tls.minVersion);
  const { ciphers, tls13Only } = tlsCiphers(tls.cipherSuites);
  let pair = tls.cert !== undefined && tls.key !== undefined ? { cert: tls.cert, key: tls.key } : undefined;
  const baseOptions: ServerOptions = {
    minVersion: tls13Only ? 'TLSv1.3' : minVersion,
    ...(ciphers !== undefined ? { ciphers } : {}),
    ...(clientCA !== undefined ? { requestCert: true, rejectUnauthorized: false } : { requestCert: false }),
    maxHeaderSize: KUBELET_MAX_HEADER_BYTES,
    headersTimeout: 60_000,
    requestTimeout: 4 * 60 * 60_000,
    keepAliveTimeout: 90_000,
  };
  /** The options of the secure context in effect: the base, the client CA and the serving pair. */
  const secureOptions = (): ServerOptions => ({ ...baseOptions, ...(clientCA !== undefined ? { ca: clientCA } : {}), ...(pair ?? {}) });
  const filter = createAuthFilter({
    authenticator: options.authenticator,
    authorizer: options.authorizer,
    nodeName: options.nodeName,
    logger,
  });
  let running: Server | undefined;
  const server = createKubeletHttpServer({
    router: options.router,
    logger,
    name: 'kubelet',
    createServer: (listener) => {
      running = createServer(secureOptions(), filter(listener));
      return running;
    },
  });
  // A new client CA bundle verifies the handshakes that follow (upstream's x509 authenticator verifies
  // each request against the dynamic bundle; node verifies at the handshake, so the context follows it).
  provider?.onChange((pem) => {
    const previous = clientCA;
    clientCA = pem;
    try {
      createSecureContext(secureOptions());
    } catch (err) {
      clientCA = previous;
      logger.error('Client CA bundle cannot be used, keeping the current one', { err: errorMessage(err) });
      return;
    }
    if (pair !== undefined) running?.setSecureContext(secureOptions());
  });
  return {
    ...server,
    router: server.router,
    setCertificate(next) {
      try {
        createSecureContext({ ...secureOptions(), ...next });
      } catch (err) {
        throw new ServerError('INVALID_TLS_CONFIG', `serving certificate cannot be used: ${errorMessage(err)}`, { cause: err });
      }
      pair = next;
      running?.setSecureContext(secureOptions());
    },
  };
}
