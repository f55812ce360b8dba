// TLS bootstrap and rotation against the real kube-apiserver and kube-controller-manager of
// scripts/control-plane.sh: the bootstrap token's CSR is auto-approved (nodeclient), the node's
// own renewal too (selfnodeclient), and the certificates authenticate as system:node:<name>.
import { spawn } from 'node:child_process';
import { X509Certificate, createPublicKey, randomBytes } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { KubeClient } from '@kubelet-ts/kube-client';
import { controlPlaneEnv, waitFor } from '@kubelet-ts/test-support';
import {
  createCertificateManager,
  createFileStore,
  digestedName,
  isClientConfigStillValid,
  kubeletClientUsages,
  loadClientCert,
  makeCsrPem,
  nodeClientSubject,
  parseCsrPem,
  parsePrivateKeyPem,
  requestCertificate,
  generatePrivateKeyPem,
} from '../../src/index.js';
import type { CertificatePair, CsrApi } from '../../src/index.js';
import { createTestCa } from '../../src/testing/index.js';
import { certClient, closeClients, csrApiOver, kubeconfigClient, kubectl, request } from './api.js';

const cp = controlPlaneEnv();
const suffix = randomBytes(3).toString('hex');
let bootstrapClient: KubeClient;
let bootstrapApi: CsrApi;
const cluster = { server: cp.apiserver, certificateAuthority: cp.caFile };
const SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';

const dirs: string[] = [];
const nodes: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), 'cm-it-'));
  dirs.push(dir);
  return dir;
}

interface ApiCsr {
  metadata: { name: string; generateName?: string };
  spec: { username: string; groups: string[]; signerName: string; usages: string[]; request: string };
  status?: { conditions?: { type: string; reason?: string }[]; certificate?: string };
}

/** Every CSR whose request names `system:node:<node>` (read with the admin's rights). */
async function csrsOf(node: string): Promise<ApiCsr[]> {
  const list = JSON.parse(await kubectl(cp, 'get', 'csr', '-o', 'json')) as { items: ApiCsr[] };
  return list.items.filter((csr) => {
    try {
      return parseCsrPem(Buffer.from(csr.spec.request, 'base64')).subject.commonName === `system:node:${node}`;
    } catch {
      return false;
    }
  });
}

/** The authenticated user of a client certificate, per the API server (SelfSubjectReview). */
async function whoAmI(pemFile: string): Promise<{ username: string; groups: string[] }> {
  const client = certClient(cp, pemFile);
  try {
    const review = (await client.create('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
    })) as { status: { userInfo: { username: string; groups: string[] } } };
    return review.status.userInfo;
  } finally {
    client.closeAllConnections();
  }
}

/** The test's reader of the kubeconfig it wrote (the kubelet uses its API client's kubeconfig loader). */
async function readClientCertificate(kubeconfigPath: string): Promise<string | undefined> {
  const config = parse(await fs.readFile(kubeconfigPath, 'utf8')) as { users?: { user?: { 'client-certificate'?: string } }[] };
  const file = config.users?.[0]?.user?.['client-certificate'];
  return file === undefined ? undefined : fs.readFile(file, 'utf8');
}

beforeAll(async () => {
  bootstrapClient = await kubeconfigClient(cp.bootstrapKubeconfig);
  bootstrapApi = csrApiOver(bootstrapClient);
});

afterAll(async () => {
  closeClients();
  for (const node of nodes) {
    const names = (await csrsOf(node)).map((c) => c.metadata.name);
    if (names.length > 0) await kubectl(cp, 'delete', 'csr', '--ignore-not-found', ...names);
    await kubectl(cp, 'delete', 'node', '--ignore-not-found', node);
  }
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

describe('TLS bootstrap against the real API server', () => {
  it('gets system:node:<name> with the bootstrap token: approved, stored, and it authenticates as the node', async () => {
    const node = `kts-test-cm-${suffix}`;
    nodes.push(node);
    const dir = await tempDir();
    const kubeconfigPath = join(dir, 'kubelet.kubeconfig');
    const certDir = join(dir, 'pki');
    const result = await loadClientCert({
      kubeconfigPath,
      certDir,
      nodeName: node,
      cluster,
      api: bootstrapApi,
      readClientCertificate,
      checkServer: async (signal) => {
        // kube-client speaks JSON only (/healthz answers a plain "ok"): /version, public as /healthz is.
        const version = await bootstrapClient.request({ method: 'GET', path: '/version', signal });
        const { gitVersion } = version.body as { gitVersion?: unknown };
        if (version.statusCode !== 200 || typeof gitVersion !== 'string')
          throw new Error(`version: ${version.statusCode} ${JSON.stringify(version.body)}`);
      },
      timeoutMs: 90_000,
    });
    expect(result.bootstrapped).toBe(true);
    const pair = result.pair as CertificatePair;

    // The CSR as the API server holds it.
    const [csr, ...others] = await csrsOf(node);
    expect(others).toEqual([]);
    expect(csr?.metadata.name).toBe(digestedName(pair.privateKey, nodeClientSubject(node), kubeletClientUsages(pair.privateKey)));
    expect(csr?.spec.username).toBe(`system:bootstrap:${cp.bootstrapToken.split('.')[0] ?? ''}`);
    expect(csr?.spec.groups).toContain('system:bootstrappers');
    expect(csr?.spec.signerName).toBe(SIGNER);
    expect(csr?.spec.usages).toEqual(['digital signature', 'client auth']);
    expect(csr?.status?.conditions?.map((c) => [c.type, c.reason])).toEqual([['Approved', 'AutoApproved']]);

    // The files.
    const current = join(certDir, 'kubelet-client-current.pem');
    const target = await fs.readlink(current);
    expect(target).toMatch(/\/kubelet-client-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\.pem$/);
    expect((await fs.stat(target)).mode & 0o777).toBe(0o600);
    const kubeconfig = parse(await fs.readFile(kubeconfigPath, 'utf8')) as Record<string, unknown>;
    expect(kubeconfig).toMatchObject({
      'current-context': 'default-context',
      clusters: [{ name: 'default-cluster', cluster: { server: cp.apiserver, 'certificate-authority': cp.caFile } }],
      users: [{ name: 'default-auth', user: { 'client-certificate': current, 'client-key': current } }],
      contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', user: 'default-auth', namespace: 'default' } }],
    });

    // The certificate is the node's identity: the Node authorizer lets it read its own (absent) Node only.
    expect(await whoAmI(current)).toMatchObject({
      username: `system:node:${node}`,
      groups: expect.arrayContaining(['system:nodes', 'system:authenticated']),
    });
    expect((await request(cp, { pemFile: current }, 'GET', `/api/v1/nodes/${node}`)).statusCode).toBe(404);
    expect((await request(cp, { pemFile: current }, 'GET', '/api/v1/nodes/kts-node')).statusCode).toBe(403);

    // Asking again with the same key finds the same CSR (409 AlreadyExists → GET → ours); a restart does not bootstrap.
    const again = await requestCertificate({
      api: bootstrapApi,
      csrPem: makeCsrPem(pair.privateKey, nodeClientSubject(node)),
      name: csr?.metadata.name ?? '',
      signerName: SIGNER,
      usages: kubeletClientUsages(pair.privateKey),
      privateKey: pair.privateKey,
    });
    expect(again.name).toBe(csr?.metadata.name);
    expect(await isClientConfigStillValid({ kubeconfigPath, readClientCertificate })).toBe(true);
    expect(await loadClientCert({ kubeconfigPath, certDir, nodeName: node, cluster, api: bootstrapApi, readClientCertificate })).toEqual({
      bootstrapped: false,
    });
  });

  it('renews the client certificate before it expires with the node’s own certificate (selfnodeclient)', async () => {
    const node = `kts-test-cm-rot-${suffix}`;
    nodes.push(node);
    const dir = await tempDir();
    const store = createFileStore({ certDir: dir });
    // A short-lived certificate from the cluster CA: 30 s, so the 70 % point comes within the test.
    const clusterCa = createTestCa({
      existing: { certificatePem: readFileSync(cp.caFile, 'utf8'), keyPem: readFileSync(cp.caKeyFile, 'utf8') },
    });
    const keyPem = await generatePrivateKeyPem();
    const notBefore = Date.now() - 2_000;
    const seed = clusterCa.issue({
      subject: nodeClientSubject(node),
      publicKey: createPublicKey(parsePrivateKeyPem(keyPem)),
      notBefore,
      notAfter: notBefore + 30_000,
    });
    await store.update(seed, keyPem);
    expect(await whoAmI(store.currentPath())).toMatchObject({ username: `system:node:${node}` });

    const credentialsUsed: string[] = [];
    const csrApiFor = (current: CertificatePair | undefined): CsrApi => {
      credentialsUsed.push(current === undefined ? 'bootstrap' : current.leaf.serialNumber);
      return current === undefined ? bootstrapApi : csrApiOver(certClient(cp, store.currentPath()));
    };
    const logger = new RecordingLogger();
    const manager = createCertificateManager({ store, nodeName: node, csrApiFor, random: () => 0, logger });
    const rotated = new Promise<CertificatePair>((resolve) => manager.onRotation(resolve));
    const controller = new AbortController();
    const run = manager.run(controller.signal);
    try {
      let timer: NodeJS.Timeout | undefined;
      const pair = await Promise.race([
        rotated,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no rotation: ${JSON.stringify(logger.records.slice(-5))}`)), 60_000);
        }),
      ]).finally(() => clearTimeout(timer));
      // Rotated at 70 % of 30 s after notBefore, with the seeded certificate's credentials.
      expect(Date.now()).toBeGreaterThanOrEqual(notBefore + 21_000 - 1_000);
      const seedSerial = new X509Certificate(seed).serialNumber;
      expect(credentialsUsed[0]).toBe(seedSerial);
      expect(pair.leaf.serialNumber).not.toBe(seedSerial);
      expect(pair.notAfter - pair.notBefore).toBeGreaterThan(86_400_000);
      expect(manager.current()?.leaf.serialNumber).toBe(pair.leaf.serialNumber);

      const renewal = (await csrsOf(node)).find((c) => c.spec.username === `system:node:${node}`);
      expect(renewal?.metadata.generateName).toBe('csr-');
      expect(renewal?.spec.signerName).toBe(SIGNER);
      expect(renewal?.spec.usages).toEqual(['digital signature', 'client auth']);
      expect(renewal?.spec.groups).toContain('system:nodes');
      expect(renewal?.status?.conditions?.map((c) => [c.type, c.reason])).toEqual([['Approved', 'AutoApproved']]);
      expect(await whoAmI(store.currentPath())).toMatchObject({
        username: `system:node:${node}`,
        groups: expect.arrayContaining(['system:nodes']),
      });
    } finally {
      controller.abort();
      await run;
    }
  });

  it('names the bootstrap CSR as the upstream kubelet v1.34 does for the same key', async () => {
    const node = `kts-test-cm-up-${suffix}`;
    nodes.push(node);
    const dir = await tempDir();
    const keyPem = await generatePrivateKeyPem();
    await fs.mkdir(join(dir, 'pki'));
    await fs.writeFile(join(dir, 'pki', 'kubelet-client.key.tmp'), keyPem, { mode: 0o600 });
    // The upstream kubelet bootstraps with this key, then stops at the CRI check (no runtime at that socket).
    await fs.writeFile(
      join(dir, 'config.yaml'),
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'kind: KubeletConfiguration',
        'failSwapOn: false',
        'cgroupDriver: cgroupfs',
        `containerRuntimeEndpoint: unix://${join(dir, 'no-runtime.sock')}`,
        'authentication: {anonymous: {enabled: false}, webhook: {enabled: false}}',
        'authorization: {mode: AlwaysAllow}',
        'port: 0',
        'readOnlyPort: 0',
        'healthzPort: 0',
        '',
      ].join('\n'),
    );
    const args = [
      `--config=${join(dir, 'config.yaml')}`,
      `--bootstrap-kubeconfig=${cp.bootstrapKubeconfig}`,
      `--kubeconfig=${join(dir, 'kubelet.kubeconfig')}`,
      `--cert-dir=${join(dir, 'pki')}`,
      `--root-dir=${join(dir, 'root')}`,
      `--hostname-override=${node}`,
    ];
    const upstream = spawn(join(cp.upstreamBinDir, 'kubelet'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    upstream.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<void>((resolve) => upstream.on('exit', () => resolve()));
    try {
      const [csr] = await waitFor(
        `the upstream kubelet's CSR (log: ${log.slice(-500)})`,
        async () => {
          const found = await csrsOf(node);
          return found.length > 0 ? found : undefined;
        },
        60_000,
        250,
      );
      const key = parsePrivateKeyPem(keyPem);
      expect(csr?.metadata.name).toBe(digestedName(key, nodeClientSubject(node), kubeletClientUsages(key)));
      expect(csr?.spec.usages).toEqual(kubeletClientUsages(key));
      // And its request is what ours looks like: same subject encoding, signed by the same key.
      const theirs = parseCsrPem(Buffer.from(csr?.spec.request ?? '', 'base64'));
      expect(theirs.subjectAttributes).toEqual(parseCsrPem(makeCsrPem(key, nodeClientSubject(node))).subjectAttributes);
      expect(theirs.signedBy(createPublicKey(key))).toBe(true);
    } finally {
      if (upstream.exitCode === null) upstream.kill('SIGTERM');
      await exited;
    }
  });
});
