import { FakeClock, RecordingLogger } from '@kubelet-ts/common/testing';
import { createNodeDockerConfigProvider, nodeDockerConfigPaths } from './node-docker-config.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const dirs = { rootDirectory: '/var/lib/kubelet', workingDirectory: '/work', homeDirectory: '/home/k' };

function fakeFiles(files: Record<string, string>): { read: (path: string) => Promise<Uint8Array>; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: (path) => {
      reads.push(path);
      const content = files[path];
      return content === undefined
        ? Promise.reject(Object.assign(new Error('ENOENT'), { code: 'ENOENT' }))
        : Promise.resolve(Buffer.from(content));
    },
  };
}

describe('node docker config (upstream ReadDockerConfigFile)', () => {
  it('searches config.json in the root dir, working dir, $HOME/.docker, /.docker, then .dockercfg in root, working, $HOME, /', () => {
    expect(nodeDockerConfigPaths(dirs)).toEqual({
      configJson: ['/var/lib/kubelet/config.json', '/work/config.json', '/home/k/.docker/config.json', '/.docker/config.json'],
      dockercfg: ['/var/lib/kubelet/.dockercfg', '/work/.dockercfg', '/home/k/.dockercfg', '/.dockercfg'],
    });
    // Without a root dir upstream's first path is relative, i.e. the working directory.
    expect(nodeDockerConfigPaths({ workingDirectory: '/work', homeDirectory: '/home/k' }).configJson[0]).toBe('/work/config.json');
  });

  it('uses the first valid config.json, skipping (and logging) an invalid one, and .dockercfg only without one', async () => {
    const logger = new RecordingLogger();
    const files = fakeFiles({
      '/var/lib/kubelet/config.json': '{not json',
      '/home/k/.docker/config.json': `{"auths": {"home.io": {"auth": "${b64('home:pw')}"}}}`,
      '/.docker/config.json': `{"auths": {"root.io": {"auth": "${b64('root:pw')}"}}}`,
      '/work/.dockercfg': `{"legacy.io": {"auth": "${b64('legacy:pw')}"}}`,
    });
    const provider = createNodeDockerConfigProvider({ ...dirs, readFile: files.read, logger, clock: new FakeClock() });
    expect([...(await provider.provide('home.io/app')).keys()]).toEqual(['home.io']);
    expect(files.reads).toEqual(['/var/lib/kubelet/config.json', '/work/config.json', '/home/k/.docker/config.json']);
    expect(logger.find('Unable to parse docker config file')[0]?.fields['path']).toBe('/var/lib/kubelet/config.json');

    const legacyOnly = fakeFiles({ '/work/.dockercfg': `{"legacy.io": {"auth": "${b64('legacy:pw')}"}}` });
    const legacy = createNodeDockerConfigProvider({ ...dirs, readFile: legacyOnly.read, clock: new FakeClock() });
    expect([...(await legacy.provide('legacy.io/app'))]).toEqual([['legacy.io', { username: 'legacy', password: 'pw', email: '' }]]);
  });

  it('re-reads the files only after the 5 minute cache lifetime', async () => {
    const clock = new FakeClock();
    const files = fakeFiles({ '/work/config.json': '{"auths": {"a.io": {}}}' });
    const provider = createNodeDockerConfigProvider({ ...dirs, readFile: files.read, clock });
    await provider.provide('a.io/x');
    const first = files.reads.length;
    await clock.advance(5 * 60_000 - 1);
    await provider.provide('a.io/x');
    expect(files.reads).toHaveLength(first);
    await clock.advance(1);
    await provider.provide('a.io/x');
    expect(files.reads).toHaveLength(first * 2);
  });

  it('gives no credentials when there is no file at all', async () => {
    const provider = createNodeDockerConfigProvider({ ...dirs, readFile: fakeFiles({}).read, clock: new FakeClock() });
    expect((await provider.provide('a.io/x')).size).toBe(0);
  });
});
