import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fc, fuzz, fuzzRuns, hostileText, mutated } from '@kubelet-ts/test-support';
import { stringify } from 'yaml';
import { KubeClientError } from './errors.js';
import { loadKubeconfig } from './kubeconfig.js';

// `npm run fuzz` makes KUBELET_TS_FUZZ_SCALE times the cases: the hang guard grows with them.
jest.setTimeout(fuzzRuns(30_000));

type Json = Parameters<typeof mutated>[0];

const validKubeconfig: Json = {
  apiVersion: 'v1',
  kind: 'Config',
  clusters: [
    {
      name: 'c',
      cluster: { server: 'https://127.0.0.1:6443/', 'certificate-authority-data': 'Y2EK', 'tls-server-name': 'kubernetes' },
    },
  ],
  users: [{ name: 'u', user: { 'client-certificate': 'pki/kubelet.crt', 'client-key': 'pki/kubelet.key', token: 'abc' } }],
  contexts: [
    { name: 'ctx', context: { cluster: 'c', user: 'u', namespace: 'kube-system' } },
    { name: 'other', context: { cluster: 'c' } },
  ],
  'current-context': 'ctx',
};

/** As YAML when the printer can, else JSON, else a deep document the parser must refuse. */
function asText(value: unknown): string {
  try {
    return stringify(value);
  } catch {
    try {
      return JSON.stringify(value);
    } catch {
      return `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    }
  }
}

describe('loadKubeconfig (fuzz)', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kts-kubeconfig-fuzz-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads a mutated or hostile kubeconfig, or rejects with KUBECONFIG_INVALID naming the file', async () => {
    const file = path.join(dir, 'kubelet.conf');
    await fuzz(
      'kube-client: kubeconfig file',
      fc.oneof({ arbitrary: mutated(validKubeconfig).map(asText), weight: 3 }, { arbitrary: hostileText(), weight: 1 }),
      async (text) => {
        fs.writeFileSync(file, text);
        let connection;
        try {
          connection = await loadKubeconfig(file);
        } catch (err) {
          expect(KubeClientError.is(err, 'KUBECONFIG_INVALID')).toBe(true);
          expect((err as Error).message.startsWith(`kubeconfig ${file}: `)).toBe(true);
          expect((err as Error).message.length).toBeGreaterThan(`kubeconfig ${file}: `.length);
          return;
        }
        expect(connection.source).toBe(file);
        expect(connection.server).toMatch(/^https?:\/\//);
      },
      { runs: 100 },
    );
  });
});
