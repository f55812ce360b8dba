import { createPublicKey } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '@kubelet-ts/common/testing';
import { waitFor } from '@kubelet-ts/test-support';
import { isClientConfigStillValid, loadClientCert, loadClientConfig } from './bootstrap.js';
import type { LoadClientCertOptions } from './bootstrap.js';
import { digestedName, makeCsrPem, nodeClientSubject } from './csr.js';
import { writeKubeconfigFromBootstrapping } from './kubeconfig.js';
import { generatePrivateKeyPem, parsePrivateKeyPem } from './keys.js';
import { createTestCa, FakeCsrApi } from './testing/index.js';

const DAY = 86_400_000;
const ca = createTestCa();
const cluster = { server: 'https://127.0.0.1:16443', certificateAuthority: '/run/kts-dev-cp/pki/ca.crt' };

/** Waits for real I/O (key generation, files) the code under test does between fake-clock steps. */
const untilReal = (what: string, check: () => boolean): Promise<true> => waitFor(what, () => check() || undefined, 5_000, 1);

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'cm-bootstrap-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function certificate(notBefore: number, notAfter: number): Promise<string> {
  const key = parsePrivateKeyPem(await generatePrivateKeyPem());
  return ca.issue({ subject: nodeClientSubject('n1'), publicKey: createPublicKey(key), notBefore, notAfter });
}

describe('isClientConfigStillValid', () => {
  it('is false without the kubeconfig, and true while every certificate of its client certificate is unexpired', async () => {
    const clock = new FakeClock(Date.now());
    const kubeconfigPath = join(dir, 'kubeconfig');
    const pem = (await certificate(clock.now() - DAY, clock.now() + DAY)) + ca.certificatePem;
    const readClientCertificate = jest.fn(() => Promise.resolve(pem));
    expect(await isClientConfigStillValid({ kubeconfigPath, readClientCertificate, clock })).toBe(false);
    expect(readClientCertificate).not.toHaveBeenCalled();
    await fs.writeFile(kubeconfigPath, 'the reader parses it');
    expect(await isClientConfigStillValid({ kubeconfigPath, readClientCertificate, clock })).toBe(true);
    expect(readClientCertificate).toHaveBeenCalledWith(kubeconfigPath);
    clock.setNow(clock.now() + 2 * DAY);
    expect(await isClientConfigStillValid({ kubeconfigPath, readClientCertificate, clock })).toBe(false);
  });

  it('is false (bootstrap again) for a kubeconfig without a usable client certificate, and throws for other stat errors', async () => {
    const kubeconfigPath = join(dir, 'kubeconfig');
    await fs.writeFile(kubeconfigPath, 'x');
    const check = (read: () => Promise<string | undefined>): Promise<boolean> =>
      isClientConfigStillValid({ kubeconfigPath, readClientCertificate: read });
    expect(await check(() => Promise.resolve(undefined))).toBe(false);
    expect(await check(() => Promise.resolve('no pem'))).toBe(false);
    expect(await check(() => Promise.reject(new Error('yaml: line 1: mapping values are not allowed')))).toBe(false);
    await expect(
      isClientConfigStillValid({
        kubeconfigPath: join(kubeconfigPath, 'below-a-file'),
        readClientCertificate: () => Promise.resolve(undefined),
      }),
    ).rejects.toThrow(expect.objectContaining({ code: 'STORE' }));
  });
});

describe('writeKubeconfigFromBootstrapping', () => {
  it('writes the file the upstream kubelet v1.34 writes, byte for byte (0600)', async () => {
    const kubeconfigPath = join(dir, 'kubelet.kubeconfig');
    await writeKubeconfigFromBootstrapping({ kubeconfigPath, cluster, pemPath: '/tmp/cm-upstream/pki/kubelet-client-current.pem' });
    // Written by the upstream kubelet v1.34.4 (bootstrap with --cert-dir=/tmp/cm-upstream/pki).
    expect(await fs.readFile(kubeconfigPath, 'utf8')).toBe(`apiVersion: v1
clusters:
- cluster:
    certificate-authority: /run/kts-dev-cp/pki/ca.crt
    server: https://127.0.0.1:16443
  name: default-cluster
contexts:
- context:
    cluster: default-cluster
    namespace: default
    user: default-auth
  name: default-context
current-context: default-context
kind: Config
users:
- name: default-auth
  user:
    client-certificate: /tmp/cm-upstream/pki/kubelet-client-current.pem
    client-key: /tmp/cm-upstream/pki/kubelet-client-current.pem
`);
    expect((await fs.stat(kubeconfigPath)).mode & 0o777).toBe(0o600);
  });

  it('copies the CA bundle as certificate-authority-data when the bootstrap kubeconfig had no file', async () => {
    const kubeconfigPath = join(dir, 'sub', 'kubeconfig');
    await writeKubeconfigFromBootstrapping({
      kubeconfigPath,
      cluster: { server: 'https://h:6443', certificateAuthorityData: ca.certificatePem, insecureSkipTlsVerify: true },
      pemPath: '/p.pem',
    });
    const text = await fs.readFile(kubeconfigPath, 'utf8');
    expect(text).toContain(`certificate-authority-data: ${Buffer.from(ca.certificatePem).toString('base64')}\n`);
    expect(text).toContain('insecure-skip-tls-verify: true\n');
  });
});

describe('loadClientCert', () => {
  function options(api: FakeCsrApi, clock: FakeClock, extra: Partial<LoadClientCertOptions> = {}): LoadClientCertOptions {
    return {
      kubeconfigPath: join(dir, 'kubelet.kubeconfig'),
      certDir: join(dir, 'pki'),
      nodeName: 'n1',
      cluster,
      api,
      readClientCertificate: () => fs.readFile(join(dir, 'pki', 'kubelet-client-current.pem'), 'utf8'),
      clock,
      ...extra,
    };
  }

  it('requests system:node:<node> as node-csr-<digest>, stores the pair and writes the kubeconfig', async () => {
    const clock = new FakeClock(Date.now());
    const api = new FakeCsrApi({ clock });
    const result = await loadClientCert(options(api, clock));
    expect(result.bootstrapped).toBe(true);

    const create = api.calls[0];
    if (create?.method !== 'create') throw new Error('expected a create first');
    const key = result.pair?.privateKey;
    if (key === undefined) throw new Error('expected a pair');
    expect(create.body.metadata).toEqual({ name: digestedName(key, nodeClientSubject('n1'), ['digital signature', 'client auth']) });
    expect(create.body.spec.signerName).toBe('kubernetes.io/kube-apiserver-client-kubelet');
    expect(create.body.spec.usages).toEqual(['digital signature', 'client auth']);
    expect(result.pair?.leaf.subject).toBe('O=system:nodes\nCN=system:node:n1');
    expect(await fs.readdir(join(dir, 'pki'))).toEqual(expect.not.arrayContaining(['kubelet-client.key.tmp']));
    expect(await fs.readFile(join(dir, 'kubelet.kubeconfig'), 'utf8')).toContain(
      `client-certificate: ${join(dir, 'pki', 'kubelet-client-current.pem')}\n    client-key: ${join(dir, 'pki', 'kubelet-client-current.pem')}\n`,
    );

    // A second start finds a valid kubeconfig and asks nothing.
    const calls = api.calls.length;
    expect(await loadClientCert(options(api, clock))).toEqual({ bootstrapped: false });
    expect(api.calls).toHaveLength(calls);
  });

  it('keeps the key in kubelet-client.key.tmp across a failed attempt and finds its CSR again by name', async () => {
    const clock = new FakeClock(Date.now());
    const api = new FakeCsrApi({ mode: 'manual', clock });
    const first = loadClientCert(options(api, clock, { timeoutMs: 60_000 })).catch((err: unknown) => err);
    await untilReal('the CSR', () => api.objects.size > 0);
    await clock.advance(60_000);
    expect(await first).toMatchObject({ code: 'TIMEOUT' });
    const tmpKey = await fs.readFile(join(dir, 'pki', 'kubelet-client.key.tmp'), 'utf8');
    expect(tmpKey).toMatch(/^-----BEGIN EC PRIVATE KEY-----/);
    expect((await fs.stat(join(dir, 'pki', 'kubelet-client.key.tmp'))).mode & 0o777).toBe(0o600);

    api.mode = 'approve';
    const [name] = api.createdNames;
    api.approve(name ?? '');
    const second = await loadClientCert(options(api, clock));
    expect(api.createdNames).toEqual([name]);
    expect(api.calls.map((c) => c.method)).toEqual(['create', 'watch', 'create', 'get', 'watch']);
    expect(second.pair?.keyPem).toBe(tmpKey);
  });

  it('fails with the denial, and refuses a CSR of our name that another key made', async () => {
    const clock = new FakeClock(Date.now());
    const api = new FakeCsrApi({ mode: 'manual', clock });
    const denied = loadClientCert(options(api, clock)).catch((err: unknown) => err);
    await untilReal('the CSR', () => api.objects.size > 0);
    api.deny(api.createdNames[0] ?? '', 'Nope', 'not this node');
    expect(await denied).toMatchObject({
      code: 'DENIED',
      message: 'certificate signing request is denied, reason: Nope, message: not this node',
    });

    // Another machine's CSR under our name: its request is signed by another key.
    const ours = parsePrivateKeyPem(await fs.readFile(join(dir, 'pki', 'kubelet-client.key.tmp'), 'utf8'));
    api.objects.clear();
    await api.create({
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: digestedName(ours, nodeClientSubject('n1'), ['digital signature', 'client auth']) },
      spec: {
        request: Buffer.from(makeCsrPem(parsePrivateKeyPem(await generatePrivateKeyPem()), nodeClientSubject('n1'))).toString('base64'),
        signerName: 'kubernetes.io/kube-apiserver-client-kubelet',
        usages: ['digital signature', 'client auth'],
      },
    });
    await expect(loadClientCert(options(api, clock))).rejects.toThrow(expect.objectContaining({ code: 'INCOMPATIBLE' }));
  });

  it('polls /healthz before the CSR, and goes on when the server never answered within a minute', async () => {
    const clock = new FakeClock(Date.now());
    const api = new FakeCsrApi({ clock });
    const checkServer = jest.fn(() => Promise.reject(new Error('connection refused')));
    const done = loadClientCert(options(api, clock, { checkServer }));
    await untilReal('the first /healthz', () => checkServer.mock.calls.length > 0);
    for (let t = 0; t < 59; t++) await clock.advance(1000);
    expect(api.objects.size).toBe(0);
    // Every 2–2.4 s for a minute.
    expect(checkServer.mock.calls.length).toBeGreaterThanOrEqual(25);
    expect(checkServer.mock.calls.length).toBeLessThanOrEqual(31);
    await clock.advance(3000);
    expect((await done).bootstrapped).toBe(true);
  });
});

describe('loadClientConfig', () => {
  it('writes the kubeconfig pointing at kubelet-client-current.pem when it must bootstrap, and leaves a valid one alone', async () => {
    const kubeconfigPath = join(dir, 'kubelet.kubeconfig');
    const certDir = join(dir, 'pki');
    const pem = await certificate(Date.now() - DAY, Date.now() + DAY);
    const result = await loadClientConfig({ kubeconfigPath, certDir, cluster, readClientCertificate: () => Promise.resolve(pem) });
    expect(result).toEqual({ bootstrap: true, pemPath: join(certDir, 'kubelet-client-current.pem') });
    const written = await fs.readFile(kubeconfigPath, 'utf8');
    expect(written).toContain(`client-key: ${join(certDir, 'kubelet-client-current.pem')}`);
    expect(await loadClientConfig({ kubeconfigPath, certDir, cluster, readClientCertificate: () => Promise.resolve(pem) })).toEqual({
      bootstrap: false,
      pemPath: join(certDir, 'kubelet-client-current.pem'),
    });
  });
});
