import { RecordingLogger } from '@kubelet-ts/common/testing';
import { createCredentialProvider } from './credential-provider.js';
import type { DockerConfig } from './docker-config.js';
import type { CredentialProviderError } from './errors.js';
import type { DockerConfigProvider } from './node-docker-config.js';
import type { CredentialProviderPlugin } from './plugin.js';
import { dockerConfigFromSecret } from './secrets.js';
import type { PullSecret } from './secrets.js';
import { dockerConfigJsonSecret } from './testing/index.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const config = (entries: Record<string, string>): DockerConfig =>
  new Map(Object.entries(entries).map(([key, user]) => [key, { username: user, password: `${user}-pw`, email: '' }]));
const staticProvider = (entries: Record<string, string>): DockerConfigProvider & { images: string[] } => {
  const images: string[] = [];
  return { images, provide: (image) => (images.push(image), Promise.resolve(config(entries))) };
};
const plugin = (name: string, entries: Record<string, string>): CredentialProviderPlugin => ({
  name,
  provide: () => Promise.resolve(config(entries)),
});

describe('createCredentialProvider', () => {
  it('tries the pod secrets first, then the node docker config, then the plugins (upstream order)', async () => {
    const node = staticProvider({ 'registry.io': 'node' });
    const provider = createCredentialProvider({
      nodeDockerConfig: node,
      plugins: [plugin('ecr', { 'registry.io': 'plugin-a' }), plugin('gcr', { 'registry.io/team': 'plugin-b' })],
    });
    const secrets = [
      dockerConfigJsonSecret('one', { 'registry.io': { username: 'secret-1', password: 'x' } }),
      dockerConfigJsonSecret('two', { 'registry.io/team': { username: 'secret-2', password: 'y' } }),
    ];
    const found = await provider.lookup('registry.io/team/app:v1', secrets);
    expect(found.credentials.map((c) => [c.auth.username, c.source.kind])).toEqual([
      ['secret-2', 'secret'], // the more specific key of the secrets keyring first
      ['secret-1', 'secret'],
      ['node', 'node'],
      ['plugin-b', 'plugin'], // the plugins' entries form one keyring, ordered together
      ['plugin-a', 'plugin'],
    ]);
    expect(node.images).toEqual(['registry.io/team/app']); // providers see the repository, no tag
    expect(await provider.credentialsFor('registry.io/team/app:v1', secrets)).toEqual([
      { username: 'secret-2', password: 'y' },
      { username: 'secret-1', password: 'x' },
      { username: 'node', password: 'node-pw' },
      { username: 'plugin-b', password: 'plugin-b-pw' },
      { username: 'plugin-a', password: 'plugin-a-pw' },
    ]);
  });

  it('returns no credentials (an anonymous pull) when nothing matches', async () => {
    const provider = createCredentialProvider({ nodeDockerConfig: staticProvider({ 'other.io': 'node' }) });
    expect(
      await provider.credentialsFor('registry.io/app', [dockerConfigJsonSecret('s', { 'quay.io': { username: 'u', password: 'p' } })]),
    ).toEqual([]);
  });

  it('skips a pull secret that does not decode, names it, and still uses the pod’s other secrets', async () => {
    const logger = new RecordingLogger();
    const provider = createCredentialProvider({ nodeDockerConfig: null, logger });
    const badBase64: PullSecret = {
      metadata: { namespace: 'shop', name: 'bad-base64' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': 'not base64!' },
    };
    const badJson: PullSecret = {
      metadata: { namespace: 'shop', name: 'bad-json' },
      type: 'kubernetes.io/dockerconfigjson',
      data: { '.dockerconfigjson': b64('{"auths": ') },
    };
    const badAuth: PullSecret = {
      metadata: { namespace: 'shop', name: 'bad-auth' },
      type: 'kubernetes.io/dockercfg',
      data: { '.dockercfg': b64('{"registry.io": {"auth": "%%%"}}') },
    };
    const good = dockerConfigJsonSecret('good', { 'registry.io': { username: 'u', password: 'p' } }, 'shop');
    const found = await provider.lookup('registry.io/app', [badBase64, badJson, badAuth, good]);
    expect(found.credentials.map((c) => c.auth)).toEqual([{ username: 'u', password: 'p' }]);
    expect(found.credentials[0]?.source).toEqual({ kind: 'secret', namespace: 'shop', name: 'good' });
    expect(found.secretErrors.map((e) => [e.code, e.message])).toEqual([
      ['INVALID_SECRET', 'pull secret "shop/bad-base64": data[".dockerconfigjson"] is not valid base64'],
      ['INVALID_SECRET', 'pull secret "shop/bad-json": .dockerconfigjson: not valid JSON'],
      ['INVALID_SECRET', 'pull secret "shop/bad-auth": .dockercfg: ["registry.io"].auth: illegal base64 data at input byte 0'],
    ]);
    expect(logger.find('Skipping an image pull secret').map((r) => r.fields['secret'])).toEqual([
      'shop/bad-base64',
      'shop/bad-json',
      'shop/bad-auth',
    ]);
  });
});

describe('dockerConfigFromSecret (upstream secrets.MakeDockerKeyring)', () => {
  it('reads .dockerconfigjson of a dockerconfigjson secret and .dockercfg of a dockercfg secret, base64 or decoded bytes', () => {
    const cfg = dockerConfigFromSecret({
      name: 'legacy',
      namespace: 'ns',
      type: 'kubernetes.io/dockercfg',
      data: { '.dockercfg': Buffer.from(`{"registry.io": {"auth": "${b64('u:p')}"}}`) },
    });
    expect([...(cfg ?? [])]).toEqual([['registry.io', { username: 'u', password: 'p', email: '' }]]);
    expect(dockerConfigFromSecret(dockerConfigJsonSecret('s', { 'a.io': { username: 'a', password: 'b' } }))?.get('a.io')).toEqual({
      username: 'a',
      password: 'b',
      email: '',
    });
  });

  it('ignores other secret types, a missing or empty key, and a key that does not fit the type', () => {
    const json = b64('{"auths": {}}');
    expect(dockerConfigFromSecret({ name: 'opaque', type: 'Opaque', data: { '.dockerconfigjson': json } })).toBeUndefined();
    expect(
      dockerConfigFromSecret({ name: 'empty', type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': '' } }),
    ).toBeUndefined();
    expect(dockerConfigFromSecret({ name: 'none', type: 'kubernetes.io/dockerconfigjson', data: null })).toBeUndefined();
    expect(dockerConfigFromSecret({ name: 'mixed', type: 'kubernetes.io/dockercfg', data: { '.dockerconfigjson': json } })).toBeUndefined();
  });

  it('rejects a secret object of the wrong shape, naming it', () => {
    expect(() => dockerConfigFromSecret({ name: 's', type: 'kubernetes.io/dockercfg', data: { '.dockercfg': 7 } } as never)).toThrow(
      expect.objectContaining({
        code: 'INVALID_SECRET',
        message: expect.stringContaining('pull secret "s": data..dockercfg'),
      }) as CredentialProviderError,
    );
  });
});
