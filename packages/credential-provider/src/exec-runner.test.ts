// The one test that runs a real process as the plugin: a tiny node script in a temp bin dir.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { CredentialProviderError } from './errors.js';
import { createCredentialProvider } from './credential-provider.js';
import { createExecPluginRunner } from './exec-runner.js';
import { loadCredentialProviderPlugins } from './register.js';

const PLUGIN = `#!${process.execPath}
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const request = JSON.parse(input);
  if (process.argv[2] === 'fail') {
    process.stderr.write('denied');
    process.exit(2);
  }
  process.stdout.write(JSON.stringify({
    kind: 'CredentialProviderResponse',
    apiVersion: request.apiVersion,
    cacheKeyType: 'Registry',
    auth: { '*.acme.io': { username: process.env.ACME_USER, password: 'for ' + request.image } },
  }));
});
`;

describe('exec plugins for real (createExecPluginRunner + loadCredentialProviderPlugins)', () => {
  let dir: string;
  let binDir: string;
  const writeConfig = (providers: unknown[]): string => {
    const file = join(dir, 'credential-providers.json');
    writeFileSync(file, JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1', kind: 'CredentialProviderConfig', providers }));
    return file;
  };
  const acme = (args: string[] = []): Record<string, unknown> => ({
    name: 'acme',
    matchImages: ['*.acme.io'],
    defaultCacheDuration: '1m',
    apiVersion: 'credentialprovider.kubelet.k8s.io/v1',
    args,
    env: [{ name: 'ACME_USER', value: 'robot' }],
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'credential-plugins-'));
    binDir = join(dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(join(binDir, 'acme'), PLUGIN);
    chmodSync(join(binDir, 'acme'), 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('runs the plugin binary and uses its credentials for a pull', async () => {
    const plugins = await loadCredentialProviderPlugins({ configPath: writeConfig([acme()]), binDir });
    const provider = createCredentialProvider({ nodeDockerConfig: null, plugins });
    expect(await provider.credentialsFor('eu.acme.io/team/app:v1')).toEqual([{ username: 'robot', password: 'for eu.acme.io/team/app' }]);
    expect(await provider.credentialsFor('registry.io/app')).toEqual([]);
  });

  it('reports a plugin that exits with an error as no credentials', async () => {
    const logger = new RecordingLogger();
    const plugins = await loadCredentialProviderPlugins({ configPath: writeConfig([acme(['fail'])]), binDir, logger });
    expect(await createCredentialProvider({ nodeDockerConfig: null, plugins }).credentialsFor('eu.acme.io/app')).toEqual([]);
    expect(logger.find('Failed getting credential')[0]?.fields['err']).toBe(
      'error execing credential provider plugin acme for image eu.acme.io/app: exit status 2: denied',
    );
  });

  it('kills the process when the run is aborted', async () => {
    writeFileSync(join(binDir, 'stuck'), `#!${process.execPath}\nsetInterval(() => undefined, 1000);\n`);
    chmodSync(join(binDir, 'stuck'), 0o755);
    const controller = new AbortController();
    const run = createExecPluginRunner().run({
      name: 'stuck',
      command: join(binDir, 'stuck'),
      args: [],
      env: {},
      stdin: '{}',
      signal: controller.signal,
    });
    controller.abort(new Error('context deadline exceeded'));
    await expect(run).rejects.toThrow('context deadline exceeded');
  });

  it('refuses to start without the bin dir, a provider’s binary, or a valid config', async () => {
    const config = writeConfig([acme(), { ...acme(), name: 'missing' }]);
    await expect(loadCredentialProviderPlugins({ configPath: config, binDir: join(dir, 'nope') })).rejects.toThrow(
      `plugin binary directory ${join(dir, 'nope')} did not exist`,
    );
    await expect(loadCredentialProviderPlugins({ configPath: config, binDir })).rejects.toThrow(
      expect.objectContaining({
        code: 'PLUGIN_NOT_FOUND',
        message: `plugin binary executable ${join(binDir, 'missing')} did not exist`,
      }) as CredentialProviderError,
    );
    await expect(loadCredentialProviderPlugins({ configPath: writeConfig([]), binDir })).rejects.toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }) as CredentialProviderError,
    );
  });
});
