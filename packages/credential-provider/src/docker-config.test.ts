import { CredentialProviderError } from './errors.js';
import { decodeAuthField, parseDockerConfigJson, parseDockercfg } from './docker-config.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

describe('docker config files', () => {
  it('reads auth (which wins), username/password and email, field names in any case; other fields ignored', () => {
    const config = parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'a.io': { auth: b64('alice:pa:ss'), username: 'ignored' },
          'b.io': { Username: 'bob', PASSWORD: 'secret', email: 'bob@b.io' },
          'c.io': { identitytoken: 'token' },
        },
        HttpHeaders: { 'User-Agent': 'x' },
        credsStore: 'desktop',
      }),
    );
    expect([...config]).toEqual([
      ['a.io', { username: 'alice', password: 'pa:ss', email: '' }],
      ['b.io', { username: 'bob', password: 'secret', email: 'bob@b.io' }],
      ['c.io', { username: '', password: '', email: '' }],
    ]);
  });

  it('reads the legacy .dockercfg map and a config.json without auths', () => {
    expect([...parseDockercfg(`{"https://index.docker.io/v1/": {"auth": "${b64('u:p')}", "email": "e"}}`)]).toEqual([
      ['https://index.docker.io/v1/', { username: 'u', password: 'p', email: 'e' }],
    ]);
    expect(parseDockerConfigJson('{"credsStore": "desktop"}').size).toBe(0);
  });

  it('decodes auth padded or unpadded, as upstream picks the encoding by the trailing "="', () => {
    expect(decodeAuthField(b64('user:pw1'))).toEqual({ username: 'user', password: 'pw1' });
    expect(decodeAuthField(b64('user:pw1').replace(/=+$/, ''))).toEqual({ username: 'user', password: 'pw1' });
    expect(decodeAuthField(b64('u:p'))).toEqual({ username: 'u', password: 'p' }); // no padding needed
  });

  it('rejects bad base64, an auth without ":" and bad JSON, naming the source and entry and never the data', () => {
    const bad = (fn: () => unknown): CredentialProviderError => {
      try {
        fn();
      } catch (err) {
        return err as CredentialProviderError;
      }
      throw new Error('did not throw');
    };
    const base64 = bad(() => parseDockerConfigJson('{"auths": {"a.io": {"auth": "c2VjcmV0!"}}}', '/root/.docker/config.json'));
    expect(CredentialProviderError.is(base64, 'INVALID_DOCKER_CONFIG')).toBe(true);
    expect(base64.message).toBe('/root/.docker/config.json: auths["a.io"].auth: illegal base64 data at input byte 8');
    expect(bad(() => parseDockerConfigJson(`{"auths": {"a.io": {"auth": "${b64('nocolon')}"}}}`)).message).toBe(
      'config.json: auths["a.io"].auth: unable to parse auth field, must be formatted as base64(username:password)',
    );
    const json = bad(() => parseDockerConfigJson('{"auths": {"a.io": {"password": "hunter2"'));
    expect(json.message).toBe('config.json: not valid JSON');
    expect(bad(() => parseDockerConfigJson('{"auths": {"a.io": {"username": 7}}}')).message).toBe(
      'config.json: auths["a.io"].username: cannot unmarshal number into a string',
    );
    expect(bad(() => parseDockercfg('["a.io"]')).message).toBe('.dockercfg: document: cannot unmarshal array into a map of registries');
  });
});
