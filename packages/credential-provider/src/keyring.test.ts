import { RecordingLogger } from '@kubelet-ts/common/testing';
import type { DockerConfig } from './docker-config.js';
import { createDockerKeyring } from './keyring.js';

const entry = (username: string): { username: string; password: string; email: string } => ({
  username,
  password: `${username}-pw`,
  email: '',
});
const config = (entries: Record<string, string>): DockerConfig => new Map(Object.entries(entries).map(([key, user]) => [key, entry(user)]));
const users = (keyring: ReturnType<typeof createDockerKeyring>, image: string): string[] =>
  keyring.lookup(image).map((c) => c.auth.username ?? '');

describe('createDockerKeyring (upstream BasicDockerKeyring)', () => {
  it('orders matches most specific key first (reverse byte order), whatever the order they were added in', () => {
    const keyring = createDockerKeyring();
    keyring.add(config({ '*.quay.io': 'wild', 'quay.io': 'host', 'https://quay.io/team': 'team', 'quay.io/team/app': 'app' }), {
      kind: 'node',
    });
    expect(users(keyring, 'quay.io/team/app:v1')).toEqual(['app', 'team', 'host']);
    expect(users(keyring, 'cdn.quay.io/team/app')).toEqual(['wild']);
  });

  it('strips the scheme and treats /v1/ and /v2/ as the bare host', () => {
    const keyring = createDockerKeyring();
    keyring.add(config({ 'http://one.io/v1/': 'one', 'https://two.io/v2/team': 'two' }), { kind: 'node' });
    expect(users(keyring, 'one.io/anything')).toEqual(['one']);
    expect(users(keyring, 'two.io/team/app')).toEqual(['two']);
    expect(users(keyring, 'two.io/other/app')).toEqual([]);
  });

  it('keeps every credential of one key, in the order they were added (rotation)', () => {
    const keyring = createDockerKeyring();
    keyring.add(config({ 'registry.io': 'first' }), { kind: 'secret', namespace: 'ns', name: 'a' });
    keyring.add(config({ 'https://registry.io': 'second' }), { kind: 'secret', namespace: 'ns', name: 'b' });
    expect(keyring.lookup('registry.io/app').map((c) => [c.auth.username, c.source])).toEqual([
      ['first', { kind: 'secret', namespace: 'ns', name: 'a' }],
      ['second', { kind: 'secret', namespace: 'ns', name: 'b' }],
    ]);
  });

  it('gives Docker Hub images the index.docker.io credentials when no key matches, and docker.io keys directly', () => {
    const legacy = createDockerKeyring();
    legacy.add(config({ 'https://index.docker.io/v1/': 'hub' }), { kind: 'node' });
    expect(users(legacy, 'nginx')).toEqual(['hub']);
    expect(users(legacy, 'team/app:v1')).toEqual(['hub']);
    expect(users(legacy, 'registry.io/app')).toEqual([]);
    const modern = createDockerKeyring();
    modern.add(config({ 'docker.io': 'hub', 'https://index.docker.io/v1/': 'legacy' }), { kind: 'node' });
    expect(users(modern, 'nginx')).toEqual(['hub']);
  });

  it('requires the port to match', () => {
    const keyring = createDockerKeyring();
    keyring.add(config({ 'registry.io:5000': 'port', 'registry.io': 'plain' }), { kind: 'node' });
    expect(users(keyring, 'registry.io:5000/app')).toEqual(['port']);
    expect(users(keyring, 'registry.io/app')).toEqual(['plain']);
  });

  it('skips, and logs, an entry whose key is not a URL', () => {
    const logger = new RecordingLogger();
    const keyring = createDockerKeyring({ logger });
    keyring.add(config({ 'registry.io:port': 'bad', 'registry.io': 'good' }), { kind: 'node' });
    expect(users(keyring, 'registry.io/app')).toEqual(['good']);
    expect(logger.find('Entry in dockercfg invalid')[0]?.fields).toMatchObject({
      entry: 'registry.io:port',
      err: expect.stringContaining('invalid port'),
    });
  });
});
