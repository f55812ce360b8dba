// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readmeSnippet, waitFor } from '@kubelet-ts/test-support';
import { createCertificateManager, createFileStore, loadClientCert } from './index.js';
import { FakeCsrApi } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  it('runs the usage snippet, which is the README block verbatim', async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), 'cm-readme-'));
    const bootstrapApi = new FakeCsrApi(); // auto-approves, signs with an in-memory CA
    const nodeApi = bootstrapApi;
    const readClientCertificate = (path: string): Promise<string | undefined> =>
      fs
        .readFile(path, 'utf8')
        .then((text) =>
          text.includes('client-certificate') ? fs.readFile(join(dir, 'pki', 'kubelet-client-current.pem'), 'utf8') : undefined,
        );
    const seen: string[] = [];
    const controller = new AbortController();
    try {
      // README:begin
      // --bootstrap-kubeconfig without rotateCertificates: get the node's certificate, then go on.
      const { bootstrapped, pair } = await loadClientCert({
        kubeconfigPath: join(dir, 'kubelet.kubeconfig'), // --kubeconfig, written when bootstrapping
        certDir: join(dir, 'pki'), // --cert-dir
        nodeName: 'node-a',
        cluster: { server: 'https://10.0.0.1:6443', certificateAuthority: '/etc/kubernetes/pki/ca.crt' },
        api: bootstrapApi, // a CsrApi with the bootstrap kubeconfig's credentials
        readClientCertificate, // the kubeconfig's client certificate, from the API client's loader
      });
      seen.push(`${String(bootstrapped)} ${pair?.leaf.subject.replace('\n', ', ') ?? ''}`);

      // rotateCertificates: renew at 70–90 % of the lifetime; `run` rejects (EXPIRED) when the kubelet must exit.
      const manager = createCertificateManager({
        store: createFileStore({ certDir: join(dir, 'pki') }),
        nodeName: 'node-a',
        csrApiFor: (current) => (current !== undefined ? nodeApi : bootstrapApi),
      });
      manager.onRotation((newPair) => seen.push(`rotated ${newPair.path}`)); // rebuild the API client's TLS agent
      const running = manager.run(controller.signal);
      // README:end
      await waitFor('the stored pair', () => manager.current(), 5_000, 1);
      expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
      expect(seen).toEqual(['true O=system:nodes, CN=system:node:node-a']);
      expect(manager.nextRotationDeadline()).toBeGreaterThan(Date.now() + 200 * 86_400_000); // ≥ 70 % of a year
      controller.abort();
      await running;
      expect(bootstrapApi.calls.filter((c) => c.method === 'create')).toHaveLength(1);
    } finally {
      controller.abort();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
