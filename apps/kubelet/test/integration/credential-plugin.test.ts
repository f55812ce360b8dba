/**
 * Issue 17, image credential provider plugins: with --image-credential-provider-config and
 * --image-credential-provider-bin-dir, a static pod pulls from the test bed's authenticated
 * registry with the credentials an exec plugin returns (the credentialprovider.kubelet.k8s.io/v1
 * protocol on stdin/stdout); the plugin was asked for the image's repository.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { busyboxPod, createKubelet, eventually, waitHealthy } from './harness.js';
import type { KubeletUnderTest } from './harness.js';

const registry = process.env['KUBELET_TS_AUTH_REGISTRY'] ?? '';
const user = process.env['KUBELET_TS_REGISTRY_USER'] ?? '';
const password = process.env['KUBELET_TS_REGISTRY_PASSWORD'] ?? '';

let kubelet: KubeletUnderTest;
let requests: string;

beforeAll(async () => {
  kubelet = await createKubelet('credplugin');
  const binDir = path.join(kubelet.hostDir, 'plugins');
  requests = path.join(kubelet.hostDir, 'requests.log');
  await fs.mkdir(binDir, { recursive: true });
  const response = {
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    kind: 'CredentialProviderResponse',
    cacheKeyType: 'Registry',
    cacheDuration: '1m',
    auth: { [registry]: { username: user, password } },
  };
  await fs.writeFile(
    path.join(binDir, 'test-credential-plugin'),
    `#!/bin/sh\ncat >> ${requests}\necho >> ${requests}\necho '${JSON.stringify(response)}'\n`,
    { mode: 0o755 },
  );
  const config = path.join(kubelet.hostDir, 'credential-provider.yaml');
  await fs.writeFile(
    config,
    [
      'apiVersion: kubelet.config.k8s.io/v1',
      'kind: CredentialProviderConfig',
      'providers:',
      '  - name: test-credential-plugin',
      `    matchImages: ["${registry}"]`,
      '    defaultCacheDuration: 1m',
      '    apiVersion: credentialprovider.kubelet.k8s.io/v1',
      '',
    ].join('\n'),
  );
  await kubelet.start([`--image-credential-provider-config=${config}`, `--image-credential-provider-bin-dir=${binDir}`]);
  await waitHealthy(kubelet);
});

afterAll(async () => {
  await kubelet.cleanup();
});

test('a static pod pulls from the authenticated registry with the credentials of an exec plugin', async () => {
  expect(registry).not.toBe('');
  const image = `${registry}/kubelet-ts/busybox:private`;
  await kubelet.writeManifest(
    'private.json',
    busyboxPod('private', [{ name: 'c', image, imagePullPolicy: 'Always', command: ['sleep', '3600'] }]),
  );
  await eventually('the private pod Running', async () => (await kubelet.pod('private'))?.status?.phase === 'Running', 60_000, 250);
  const request = JSON.parse((await fs.readFile(requests, 'utf8')).trim().split('\n')[0] ?? '{}') as { kind?: string; image?: string };
  // Upstream asks for the repository to pull (the reference without its tag), as the keyring looks it up.
  expect(request).toMatchObject({ kind: 'CredentialProviderRequest', image: image.replace(/:private$/, '') });
});
