/**
 * What the authenticated server (`port`, 10250) needs from API mode: its TLS pair (upstream
 * InitializeTLS: tlsCertFile/tlsPrivateKeyFile, else a self-signed pair in --cert-dir), and
 * upstream BuildAuth's authenticator (x509 client CA, TokenReview webhook, anonymous) and
 * authorizer (SubjectAccessReview webhook or AlwaysAllow) over the API server.
 */
import { promises as fs } from 'node:fs';
import { ensureSelfSignedPair } from '@kubelet-ts/certificate-manager';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { KubeletConfiguration, KubeletFlags } from '@kubelet-ts/config';
import { durationMs } from '@kubelet-ts/config';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { subjectAccessReviewsApi, tokenReviewsApi } from '@kubelet-ts/kube-client';
import {
  alwaysAllowAuthorizer,
  createWebhookAuthorizer,
  createWebhookTokenAuthenticator,
  createX509Authenticator,
  unionAuthenticator,
} from '@kubelet-ts/server';
import type { Authenticator, Authorizer, KubeletServerTlsOptions } from '@kubelet-ts/server';

export interface KubeletServing {
  tls: KubeletServerTlsOptions;
  authenticator: Authenticator;
  authorizer: Authorizer;
}

export interface KubeletServingOptions {
  config: KubeletConfiguration;
  flags: Pick<KubeletFlags, 'certDir'>;
  nodeName: string;
  client: Pick<KubeClient, 'create'>;
  clock: Clock;
  logger: Logger;
}

async function readFile(path: string, what: string): Promise<string> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`${what} ${path}: ${errorMessage(err)}`, { cause: err });
  }
}

/** Builds what the server needs; throws naming the configuration field whose file cannot be read. */
export async function createKubeletServing(options: KubeletServingOptions): Promise<KubeletServing> {
  const { config, clock, logger } = options;
  let cert: string;
  let key: string;
  if ((config.tlsCertFile ?? '') !== '' || (config.tlsPrivateKeyFile ?? '') !== '') {
    cert = await readFile(config.tlsCertFile ?? '', 'tlsCertFile');
    key = await readFile(config.tlsPrivateKeyFile ?? '', 'tlsPrivateKeyFile');
  } else {
    // Upstream names the certificate after the node's hostname; the node name is that or its override.
    const pair = await ensureSelfSignedPair({ certDir: options.flags.certDir, host: options.nodeName, clock, logger });
    cert = pair.certificatePem;
    key = pair.keyPem;
  }
  const { authentication, authorization } = config;
  const clientCAFile = authentication.x509.clientCAFile ?? '';
  const clientCA = clientCAFile !== '' ? await readFile(clientCAFile, 'authentication.x509.clientCAFile') : undefined;
  const authenticators: Authenticator[] = [];
  if (clientCA !== undefined) authenticators.push(createX509Authenticator({ clientCA }));
  if (authentication.webhook.enabled) {
    const tokenReviews = tokenReviewsApi(options.client);
    authenticators.push(
      createWebhookTokenAuthenticator({
        reviewer: {
          review: (token, signal) =>
            tokenReviews.create({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }, signal),
        },
        cacheTtlMs: durationMs(authentication.webhook.cacheTTL),
        clock,
      }),
    );
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
    tls: {
      cert,
      key,
      ...(clientCA !== undefined ? { clientCA } : {}),
      ...(config.tlsMinVersion !== undefined && config.tlsMinVersion !== '' ? { minVersion: config.tlsMinVersion } : {}),
      ...(config.tlsCipherSuites !== undefined && config.tlsCipherSuites.length > 0 ? { cipherSuites: config.tlsCipherSuites } : {}),
    },
    authenticator,
    authorizer,
  };
}
