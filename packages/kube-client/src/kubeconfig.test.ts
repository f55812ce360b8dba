import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KubeClientError } from './errors.js';
import { loadKubeconfig } from './kubeconfig.js';

describe('loadKubeconfig', () => {
  let dir: string;
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-kubeconfig-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const config = (
    user: string,
    cluster = 'server: https://127.0.0.1:6443/\n    certificate-authority: pki/ca.crt',
    extra = '',
  ): string => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    ${cluster}
users:
- name: u
  user:
${user}
contexts:
- name: ctx
  context: {cluster: c, user: u, namespace: kube-system}
- name: other
  context: {cluster: c}
current-context: ctx
${extra}`;

  it('resolves the current context, relative file paths against the kubeconfig directory', async () => {
    const file = write(
      'kubelet.conf',
      config('    client-certificate: pki/kubelet-client-current.pem\n    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem'),
    );
    const conn = await loadKubeconfig(file);
    expect(conn).toEqual({
      source: file,
      server: 'https://127.0.0.1:6443',
      certificateAuthority: { file: path.join(dir, 'pki/ca.crt') },
      clientCertificate: { file: path.join(dir, 'pki/kubelet-client-current.pem') },
      clientKey: { file: '/var/lib/kubelet/pki/kubelet-client-current.pem' },
      skipTLSVerify: false,
      namespace: 'kube-system',
      contextName: 'ctx',
      clusterName: 'c',
      userName: 'u',
    });
  });

  it('decodes inline -data fields and keeps token, tokenFile, insecure-skip-tls-verify and tls-server-name', async () => {
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const file = write(
      'k.conf',
      config(
        `    client-certificate-data: ${Buffer.from('CERT').toString('base64')}\n    client-key-data: ${Buffer.from('KEY').toString('base64')}\n    token: abc.def\n    tokenFile: token`,
        `server: https://10.0.0.1\n    certificate-authority-data: ${ca.toString('base64')}\n    insecure-skip-tls-verify: true\n    tls-server-name: kubernetes.default`,
      ),
    );
    const conn = await loadKubeconfig(file);
    expect(conn.certificateAuthority).toEqual({ data: ca });
    expect(conn.clientCertificate).toEqual({ data: Buffer.from('CERT') });
    expect(conn.clientKey).toEqual({ data: Buffer.from('KEY') });
    expect(conn).toMatchObject({
      token: 'abc.def',
      tokenFile: path.join(dir, 'token'),
      skipTLSVerify: true,
      serverName: 'kubernetes.default',
    });
  });

  it('takes another context by name, with no user (anonymous)', async () => {
    const file = write('k.conf', config('    token: t'));
    const conn = await loadKubeconfig(file, { context: 'other' });
    expect(conn.contextName).toBe('other');
    expect(conn.token).toBeUndefined();
    expect(conn.userName).toBeUndefined();
  });

  const failure = async (text: string, context?: string): Promise<KubeClientError> => {
    const file = write('bad.conf', text);
    const err = await loadKubeconfig(file, context === undefined ? {} : { context }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeClientError);
    expect((err as KubeClientError).code).toBe('KUBECONFIG_INVALID');
    expect((err as KubeClientError).message).toContain(`kubeconfig ${file}: `);
    return err as KubeClientError;
  };

  it('names the file and field of what is wrong', async () => {
    expect((await failure(config('    token: t', 'server: ftp://x'))).message).toContain('clusters[0].cluster.server: must be an https://');
    expect((await failure(config('    client-certificate: c.pem'))).message).toContain(
      'users[0].user.client-certificate: a client certificate needs a client key',
    );
    expect((await failure(config('    token: t', 'certificate-authority: ca'))).message).toContain('clusters[0].cluster.server is missing');
    expect((await failure(config('    token: t'), 'nope')).message).toContain('context: no context named "nope"');
    expect((await failure(config('    token: t').replace('current-context: ctx', ''))).message).toContain('current-context: not set');
    expect((await failure(config('    token: t').replace('{cluster: c, user: u', '{cluster: c, user: v'))).message).toContain(
      'contexts[0].context.user: no user named "v"',
    );
    expect((await failure('clusters: [oops')).message).toContain('not YAML');
  });

  it('refuses exec and auth-provider plugins clearly', async () => {
    const exec = await failure(config('    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: aws'));
    expect(exec.message).toContain('users[0].user.exec: exec credential plugins are not supported');
    const provider = await failure(config('    auth-provider:\n      name: oidc'));
    expect(provider.message).toContain('users[0].user.auth-provider: auth-provider plugins are not supported');
  });

  it('names a file it cannot read', async () => {
    const err = await loadKubeconfig(path.join(dir, 'missing')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KUBECONFIG_INVALID', message: `kubeconfig ${path.join(dir, 'missing')}: cannot read: ENOENT` });
  });

  // Found by the kubeconfig fuzzer: 400 KB of `[[[[` kept the YAML parser busy for seconds.
  it('refuses flow nesting deeper than 1000 levels at once', async () => {
    const file = write('deep', `clusters: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`);
    const started = Date.now();
    const err = await loadKubeconfig(file).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KUBECONFIG_INVALID', message: `kubeconfig ${file}: not YAML: nested more than 1000 levels deep` });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('names a YAML alias bomb', async () => {
    const lines = [
      'a0: &a0 ["lol"]',
      ...Array.from({ length: 8 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(', ')}]`),
    ];
    const file = write('bomb', `${lines.join('\n')}\n`);
    const err = await loadKubeconfig(file).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'KUBECONFIG_INVALID', message: expect.stringMatching(/: not YAML: Excessive alias count/) });
  });
});
