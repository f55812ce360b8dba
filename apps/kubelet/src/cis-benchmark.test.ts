// The kubelet items of the CIS Kubernetes Benchmark (section 4.2), checked on the example cluster
// configuration as the kubelet loads it (docs/security.md lists each item with its result), and the
// defaults that make a configuration without them safe.
import path from 'node:path';
import { loadKubeletConfiguration } from '@kubelet-ts/config';
import type { KubeletConfiguration } from '@kubelet-ts/config';
import { createKubeletServer, createRouter, alwaysAllowAuthorizer, unionAuthenticator } from '@kubelet-ts/server';

const EXAMPLE = path.resolve(__dirname, '../../../examples/kubelet-config-cluster.yaml');

/** The benchmark's strong cipher suites (4.2.12). */
const STRONG_CIPHERS = new Set([
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_RSA_WITH_AES_128_GCM_SHA256',
]);

async function load(argv: string[]): Promise<{ config: KubeletConfiguration; flags: Record<string, unknown> }> {
  const result = await loadKubeletConfiguration({ argv });
  if (!result.ok) throw new Error(JSON.stringify(result));
  return { config: result.config, flags: result.flags as unknown as Record<string, unknown> };
}

describe('CIS Kubernetes Benchmark 4.2 on examples/kubelet-config-cluster.yaml', () => {
  let config: KubeletConfiguration;
  let flags: Record<string, unknown>;
  beforeAll(async () => {
    ({ config, flags } = await load([`--config=${EXAMPLE}`, '--kubeconfig=/var/lib/kubelet/kubeconfig']));
  });

  it('4.2.1 anonymous-auth false, 4.2.2 authorization not AlwaysAllow, 4.2.3 a client CA file', () => {
    expect(config.authentication.anonymous.enabled).toBe(false);
    expect(config.authorization.mode).toBe('Webhook');
    expect(config.authentication.x509.clientCAFile).toBe('/etc/kubernetes/pki/ca.crt');
  });

  it('4.2.4 read-only port 0, 4.2.5 streaming idle timeout not 0, 4.2.6 iptables util chains', () => {
    expect(config.readOnlyPort).toBe(0);
    expect(config.streamingConnectionIdleTimeout).not.toMatch(/^0(s|m|h)?$/);
    expect(config.makeIPTablesUtilChains).toBe(true);
  });

  it('4.2.7 no hostname override, 4.2.8 events recorded (eventRecordQPS > 0)', () => {
    expect(flags['hostnameOverride'] ?? '').toBe('');
    expect(config.eventRecordQPS).toBeGreaterThan(0);
  });

  it('4.2.9 a serving certificate, 4.2.10 client rotation, 4.2.11 serving rotation', () => {
    // No tlsCertFile: serverTLSBootstrap gets (and rotates) one signed by the cluster.
    expect(config.serverTLSBootstrap).toBe(true);
    expect(config.rotateCertificates).toBe(true);
  });

  it('4.2.12 strong ciphers only, which the server accepts', () => {
    expect(config.tlsCipherSuites?.length).toBeGreaterThan(0);
    for (const suite of config.tlsCipherSuites ?? []) expect([suite, STRONG_CIPHERS.has(suite)]).toEqual([suite, true]);
    expect(() =>
      createKubeletServer({
        router: createRouter(),
        tls: {
          ...(config.tlsMinVersion !== undefined ? { minVersion: config.tlsMinVersion } : {}),
          cipherSuites: config.tlsCipherSuites ?? [],
        },
        authenticator: unionAuthenticator([], { anonymous: false }),
        authorizer: alwaysAllowAuthorizer,
        nodeName: 'n',
      }),
    ).not.toThrow();
  });

  it('4.2.13 a pod PID limit, 4.2.14 seccomp RuntimeDefault', () => {
    expect(config.podPidsLimit).toBeGreaterThan(0);
    expect(config.seccompDefault).toBe(true);
  });
});

describe('defaults', () => {
  it('of a configuration file that says nothing: anonymous off, SubjectAccessReview, no read-only port', async () => {
    const result = await loadKubeletConfiguration({
      argv: ['--config=/etc/kubelet.yaml', '--kubeconfig=/var/lib/kubelet/kubeconfig'],
      readFile: async () => 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n',
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(result.config.authentication.anonymous.enabled).toBe(false);
    expect(result.config.authentication.webhook.enabled).toBe(true);
    expect(result.config.authorization.mode).toBe('Webhook');
    expect(result.config.readOnlyPort).toBe(0);
  });

  it('without any configuration file: never AlwaysAllow nor anonymous (upstream legacy would be both)', async () => {
    const { config } = await load(['--kubeconfig=/var/lib/kubelet/kubeconfig']);
    expect(config.authentication.anonymous.enabled).toBe(false);
    expect(config.authorization.mode).toBe('Webhook');
  });
});
