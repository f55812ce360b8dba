import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod, Volume } from '@kubelet-ts/api';
import { createBasicVolumeProvider } from './basic-volume-provider.js';
import { isPodLifecycleError } from './errors.js';
import { makePod } from './testing/make-pod.js';

let root: string;
let host: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'volumes-root-'));
  host = await mkdtemp(join(tmpdir(), 'volumes-host-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(host, { recursive: true, force: true });
});

function podWith(volumes: Volume[], volumeMounts: NonNullable<Container['volumeMounts']> = []): Pod {
  return makePod({ containers: [{ name: 'app', volumeMounts }], spec: { volumes } });
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as Error,
  );
}

describe('basic volume provider', () => {
  it('creates an emptyDir under the pod dir, mounts it, and removes it on teardown', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = podWith([{ name: 'cache', emptyDir: {} }], [{ name: 'cache', mountPath: '/cache' }]);
    await provider.waitForAttachAndMount(pod);
    const dir = join(root, 'pods', pod.metadata.uid, 'volumes', 'kubernetes.io~empty-dir', 'cache');
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect(await provider.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([{ containerPath: '/cache', hostPath: dir, readOnly: false }]);
    await provider.teardownPod(pod.metadata.uid);
    await expect(stat(dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('mounts a hostPath read-only with propagation when asked', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = podWith([{ name: 'data', hostPath: { path: host } }], [{ name: 'data', mountPath: '/data', readOnly: true, mountPropagation: 'HostToContainer' }]);
    await provider.waitForAttachAndMount(pod);
    expect(await provider.getMountsForContainer(pod, pod.spec.containers[0]!)).toEqual([
      { containerPath: '/data', hostPath: host, readOnly: true, propagation: 'host-to-container' },
    ]);
  });

  it('creates DirectoryOrCreate and FileOrCreate paths', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const dir = join(host, 'made', 'dir');
    const file = join(host, 'made-file');
    await provider.waitForAttachAndMount(
      podWith([
        { name: 'd', hostPath: { path: dir, type: 'DirectoryOrCreate' } },
        { name: 'f', hostPath: { path: file, type: 'FileOrCreate' } },
      ]),
    );
    expect((await stat(dir)).isDirectory()).toBe(true);
    expect((await stat(file)).isFile()).toBe(true);
  });

  it.each([
    ['Directory', 'missing', 'is not a directory'],
    ['Directory', 'a-file', 'is not a directory'],
    ['File', 'a-dir', 'is not a file'],
    ['File', 'missing', 'is not a file'],
    ['DirectoryOrCreate', 'a-file', 'is not a directory'],
    ['FileOrCreate', 'a-dir', 'is not a file'],
    ['Socket', 'a-file', 'is not a socket file'],
  ])('hostPath type %s on %s fails: %s', async (type, what, message) => {
    await writeFile(join(host, 'a-file'), 'x');
    await mkdir(join(host, 'a-dir'));
    const provider = createBasicVolumeProvider({ rootDir: root });
    const path = join(host, what);
    const err = await errorOf(provider.waitForAttachAndMount(podWith([{ name: 'v', hostPath: { path, type } }])));
    expect(isPodLifecycleError(err, 'VolumeError')).toBe(true);
    expect(err.message).toBe(`hostPath type check failed: ${path} ${message}`);
  });

  it('mounts a subPath inside the volume, creating it when missing', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = podWith([{ name: 'data', hostPath: { path: host } }], [{ name: 'data', mountPath: '/conf', subPath: 'app/conf' }]);
    const mounts = await provider.getMountsForContainer(pod, pod.spec.containers[0]!);
    expect(mounts[0]?.hostPath).toBe(join(host, 'app', 'conf'));
    expect((await stat(join(host, 'app', 'conf'))).isDirectory()).toBe(true);
  });

  it.each([
    ['../etc', "must not contain '..'"],
    ['a/../../etc', "must not contain '..'"],
    ['/etc', 'must be a relative path'],
  ])('refuses subPath %s', async (subPath, message) => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = podWith([{ name: 'data', hostPath: { path: host } }], [{ name: 'data', mountPath: '/x', subPath }]);
    expect((await errorOf(provider.getMountsForContainer(pod, pod.spec.containers[0]!))).message).toContain(message);
  });

  it('refuses a subPath that leads outside the volume through a symlink', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'volumes-outside-'));
    try {
      await symlink(outside, join(host, 'escape'));
      const provider = createBasicVolumeProvider({ rootDir: root });
      for (const subPath of ['escape', 'escape/deeper']) {
        const pod = podWith([{ name: 'data', hostPath: { path: host } }], [{ name: 'data', mountPath: '/x', subPath }]);
        const err = await errorOf(provider.getMountsForContainer(pod, pod.spec.containers[0]!));
        expect(err.message).toContain('outside of the volume');
      }
      await expect(stat(join(outside, 'deeper'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('reports unsupported volume types for the containers that mount them only', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = makePod({
      containers: [
        { name: 'uses', volumeMounts: [{ name: 'cfg', mountPath: '/cfg' }] },
        { name: 'other', volumeMounts: [] },
      ],
      spec: { volumes: [{ name: 'cfg', configMap: { name: 'settings' } }, { name: 'mem', emptyDir: { medium: 'Memory' } }] },
    });
    await provider.waitForAttachAndMount(pod);
    const err = await errorOf(provider.getMountsForContainer(pod, pod.spec.containers[0]!));
    expect(err.message).toBe('volume type configMap not supported yet');
    expect(await provider.getMountsForContainer(pod, pod.spec.containers[1]!)).toEqual([]);
    const mem = makePod({ containers: [{ name: 'm', volumeMounts: [{ name: 'mem', mountPath: '/m' }] }], spec: { volumes: pod.spec.volumes ?? [] } });
    expect((await errorOf(provider.getMountsForContainer(mem, mem.spec.containers[0]!))).message).toBe(
      'volume type emptyDir with medium "Memory" not supported yet',
    );
  });

  it('fails a mount of an undeclared volume', async () => {
    const provider = createBasicVolumeProvider({ rootDir: root });
    const pod = podWith([], [{ name: 'ghost', mountPath: '/g' }]);
    expect((await errorOf(provider.getMountsForContainer(pod, pod.spec.containers[0]!))).message).toBe('cannot find volume "ghost" to mount into container "app"');
  });
});
