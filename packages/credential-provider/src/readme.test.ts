// The README's usage snippet, run as a test and compared with the README block, so it cannot rot.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import { readmeSnippet } from '@kubelet-ts/test-support';
import { createCredentialProvider, loadCredentialProviderPlugins } from './index.js';
import { FakePluginRunner, dockerConfigJsonSecret } from './testing/index.js';

const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');

describe('README', () => {
  let dir: string;
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the usage snippet, which is the README block verbatim', async () => {
    dir = mkdtempSync(join(tmpdir(), 'credential-readme-'));
    const rootDir = join(dir, 'kubelet');
    const binDir = join(dir, 'plugins');
    mkdirSync(rootDir);
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'acme-credential-provider'), '', { mode: 0o755 });
    const configPath = join(dir, 'credential-providers.yaml');
    writeFileSync(
      configPath,
      [
        'apiVersion: kubelet.config.k8s.io/v1',
        'kind: CredentialProviderConfig',
        'providers:',
        '  - name: acme-credential-provider',
        '    matchImages: ["*.acme.io"]',
        '    defaultCacheDuration: 10m',
        '    apiVersion: credentialprovider.kubelet.k8s.io/v1',
      ].join('\n'),
    );
    writeFileSync(
      join(rootDir, 'config.json'),
      JSON.stringify({ auths: { 'registry.io': { auth: Buffer.from('node:pw').toString('base64') } } }),
    );
    const runner = new FakePluginRunner().respondWith({
      kind: 'CredentialProviderResponse',
      apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
      cacheKeyType: 'Registry',
      auth: { '*.acme.io': { username: 'robot', password: 'token' } },
    }); // tests only: the real runner spawns <binDir>/<name>
    const logger = new RecordingLogger();
    const podSecrets = [dockerConfigJsonSecret('regcred', { 'registry.io/team': { username: 'team', password: 's3cret' } })];

    // README:begin
    const plugins = await loadCredentialProviderPlugins({ configPath, binDir, runner, logger });
    const credentials = createCredentialProvider({ rootDirectory: rootDir, plugins, logger });

    // Pod secrets first, then the node's config.json, then the plugins; most specific key first.
    await credentials.credentialsFor('registry.io/team/app:v1', podSecrets);
    // → [{ username: 'team', password: 's3cret' }, { username: 'node', password: 'pw' }]
    await credentials.credentialsFor('eu.acme.io/app:v1', podSecrets);
    // → [{ username: 'robot', password: 'token' }]
    // README:end

    expect(readme).toContain(readmeSnippet(readFileSync(__filename, 'utf8')));
    expect(await credentials.credentialsFor('registry.io/team/app:v1', podSecrets)).toEqual([
      { username: 'team', password: 's3cret' },
      { username: 'node', password: 'pw' },
    ]);
    expect(await credentials.credentialsFor('eu.acme.io/app:v1', podSecrets)).toEqual([{ username: 'robot', password: 'token' }]);
    expect(runner.calls.map((c) => c.request)).toEqual([
      { kind: 'CredentialProviderRequest', apiVersion: 'credentialprovider.kubelet.k8s.io/v1', image: 'eu.acme.io/app' },
    ]);
  });
});
