/**
 * What the authenticated server (`port`, 10250) needs from API mode: its serving certificate
 * (serving-certificates.ts: a CSR with serverTLSBootstrap, tlsCertFile/tlsPrivateKeyFile reloaded, or
 * a self-signed pair in --cert-dir), and
 * upstream BuildAuth's authenticator (x509 client CA, TokenReview webhook, anonymous) and
 * authorizer (SubjectAccessReview webhook or AlwaysAllow) over the API server.
 */
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { subjectAccessReviewsApi, tokenReviewsApi } from '@kubelet-ts/kube-client';
import {
  alwaysAllowAuthorizer,
  createDynamicClientCA,
  createWebSocketProtocolAuthenticator,
  createWebhookAuthorizer,
  createWebhookTokenAuthenticator,
  createX509Authenticator,
  unionAuthenticator,
} from '@kubelet-ts/server';
import type { Authenticator, Authorizer, DynamicClientCA, KubeletServerTlsOptions } from '@kubelet-ts/server';
import { createServingCertificates } from './serving-certificates.js';
import type { ServingCertificates, ServingCertificatesOptions } from './serving-certificates.js';

export interface KubeletServing {
  /** The TLS options but the pair, which `certificates` gives (and changes). */
  tls: Omit<KubeletServerTlsOptions, 'cert' | 'key'>;
  certificates: ServingCertificates;
  /** `authentication.x509.clientCAFile`, kept current while `run` runs; undefined without one. */
  clientCA: DynamicClientCA | undefined;
  authenticator: Authenticator;
  authorizer: Authorizer;
}

export interface KubeletServingOptions {
  config: KubeletConfiguration;
  flags: Pick<KubeletFlags, 'certDir'>;
  nodeName: string;
  client: Pick<KubeClient, 'create'> & ServingCertificatesOptions['client'];
  /** The node's addresses as last reported, for a serving CSR (serverTLSBootstrap). */
  nodeAddresses: ServingCertificatesOptions['nodeAddresses'];
  clock: Clock;
  logger: Logger;
  metrics?: Metrics;
}

/** Builds what the server needs; throws naming the configuration field whose file cannot be read. */
export async function createKubeletServing(options: KubeletServingOptions): Promise<KubeletServing> {
  const { config, clock, logger } = options;
  const certificates = await createServingCertificates({
    config,
    flags: options.flags,
    nodeName: options.nodeName,
    nodeAddresses: options.nodeAddresses,
    client: options.client,
    clock,
    logger,
    ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
  });
  const { authentication, authorization } = config;
  const clientCAFile = authentication.x509.clientCAFile ?? '';
  // Upstream's dynamic CA content: the file is watched and re-read every minute, a bad one keeps the last.
  const clientCA =
    clientCAFile !== ''
      ? await createDynamicClientCA({ path: clientCAFile, clock, logger }).catch((err: unknown) => {
          throw new Error(`authentication.x509.clientCAFile ${clientCAFile}: ${errorMessage(err)}`, { cause: err });
        })
      : undefined;
  const authenticators: Authenticator[] = [];
  if (clientCA !== undefined) authenticators.push(createX509Authenticator({ clientCA }));
  if (authentication.webhook.enabled) {
    const tokenReviews = tokenReviewsApi(options.client);
    const tokens = createWebhookTokenAuthenticator({
      reviewer: {
        review: (token, signal) =>
          tokenReviews.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }, signal),
      },
      cacheTtlMs: durationMs(authentication.webhook.cacheTTL),
      clock,
    });
    // Upstream's delegating authenticator: the Authorization header, then a WebSocket subprotocol token, one cache.
    authenticators.push(tokens, createWebSocketProtocolAuthenticator({ tokens }));
  }
  const authenticator = unionAuthenticator(authenticators, { anonymous: authentication.anonymous.enabled });
  const reviews = subjectAccessReviewsApi(options.client);
  const authorizer =
    authorization.mode === 'AlwaysAllow'
      ? alwaysAllowAuthorizer
      : createWebhookAuthorizer({
          reviewer: { review: (sar, signal) => reviews.create(sar, signal) },
          authorizedTtlMs: durationMs(authorization.webhook.cacheAuthorizedTTL),
          unauthorizedTtlMs: durationMs(authorization.webhook.cacheUnauthorizedTTL),
          clock,
        });
  return {
    certificates,
    clientCA,
    tls: {
      ...(clientCA !== undefined ? { clientCA } : {}),
      ...(config.tlsMinVersion !== undefined && config.tlsMinVersion !== '' ? { minVersion: config.tlsMinVersion } : {}),
      ...(config.tlsCipherSuites !== undefined && config.tlsCipherSuites.length > 0 ? { cipherSuites: config.tlsCipherSuites } : {}),
    },
    authenticator,
    authorizer,
  };
}
