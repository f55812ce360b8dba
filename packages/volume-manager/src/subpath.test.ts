import { mkdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { VolumeMount } from '@kubelet-ts/api';
import { newPod } from '@kubelet-ts/api/testing';
import { makeTempDir, mountsUnder } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter } from './mounter.js';
import type { Mounter } from './mounter.js';
import { openSubPath } from './subpath.js';
import { createVolumeManager } from './volume-manager.js';

let tmp: TempDir;
let root: string;
let vol: string;
beforeEach(async () => {
  tmp = await makeTempDir('vm-subpath-');
  root = join(tmp.path, 'root');
  vol = join(tmp.path, 'vol');
  await mkdir(vol, { recursive: true });
  await mkdir(join(tmp.path, 'outside'));
  await writeFile(join(tmp.path, 'outside', 'secret'), 'host secret');
});
afterEach(async () => {
  await tmp.cleanup();
});

async function rejection(p: Promise<unknown>): Promise<Error & { code?: string }> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (err: unknown) => err as Error & { code?: string },
  );
}

describe('openSubPath', () => {
  it.each([
    ['a symlink to /', async () => symlink('/', join(vol, 'evil')), 'evil'],
    ['a symlink to ..', async () => symlink('..', join(vol, 'evil')), 'evil/outside'],
    [
      'a nested symlink to an absolute outside path',
      async () => {
        await mkdir(join(vol, 'd'));
        await symlink(join(tmp.path, 'outside'), join(vol, 'd', 'link'));
      },
      'd/link/secret',
    ],
    ['a dangling symlink leading outside', async () => symlink(join(tmp.path, 'not-yet'), join(vol, 'dangling')), 'dangling'],
  ])('refuses %s', async (_name, setup, subPath) => {
    await setup();
    const err = await rejection(openSubPath(vol, subPath));
    expect(err).toMatchObject({ name: 'VolumeError', code: 'PATH_ESCAPE' });
    expect(err.message).toContain('not within volume path');
    // Nothing was created outside the volume on the way.
    await expect(readFile(join(tmp.path, 'not-yet'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it.each([['/etc'], ['../outside'], ['a/../../outside']])('refuses the subPath %j before touching the disk', async (subPath) => {
    await expect(openSubPath(vol, subPath)).rejects.toMatchObject({ code: 'PATH_ESCAPE' });
  });

  it('follows symlinks that stay inside the volume and creates missing directories', async () => {
    await mkdir(join(vol, 'real'));
    await symlink('real', join(vol, 'alias'));
    const opened = await openSubPath(vol, 'alias/new/deeper');
    try {
      expect(opened.resolved).toBe(join(vol, 'real/new/deeper'));
      expect(opened.isDirectory).toBe(true);
      expect(opened.fdPath).toBe(`/proc/${process.pid}/fd/${opened.handle.fd}`);
    } finally {
      await opened.handle.close();
    }
  });
});

describe('subPath mounts', () => {
  const podWith = (volumeMounts: VolumeMount[]) =>
    newPod({
      uid: 'uid-s',
      spec: { volumes: [{ name: 'data', hostPath: { path: vol } }] },
      containers: [{ name: 'app', volumeMounts, env: [{ name: 'POD_DIR', value: 'by-env' }] }],
    });

  it('bind-mounts the resolved subPath at volume-subpaths/<volume>/<container>/<index>; a later symlink swap does not redirect it', async () => {
    await mkdir(join(vol, 'logs'));
    await writeFile(join(vol, 'logs', 'app.log'), 'inside');
    const vm = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
    const pod = podWith([
      { name: 'data', mountPath: '/all' },
      { name: 'data', mountPath: '/logs', subPath: 'logs', readOnly: true },
    ]);
    await vm.waitForAttachAndMount(pod);
    const mounts = await vm.getMountsForContainer(pod, pod.spec.containers[0]!);
    const target = join(root, 'pods', 'uid-s', 'volume-subpaths', 'data', 'app', '1');
    expect(mounts).toEqual([
      { containerPath: '/all', hostPath: vol, readOnly: false },
      { containerPath: '/logs', hostPath: target, readOnly: true },
    ]);
    expect(await readFile(join(target, 'app.log'), 'utf8')).toBe('inside');
    expect((await mountsUnder(target))[0]?.options).toContain('ro');

    // The container now swaps the directory for a symlink to the host: the bind mount still holds the original.
    await rename(join(vol, 'logs'), join(vol, 'logs-old'));
    await symlink(join(tmp.path, 'outside'), join(vol, 'logs'));
    expect(await readFile(join(target, 'app.log'), 'utf8')).toBe('inside');
    await expect(readFile(join(target, 'secret'))).rejects.toMatchObject({ code: 'ENOENT' });

    // Asking again reuses the mount; a new container start would now be refused.
    expect((await vm.getMountsForContainer(pod, pod.spec.containers[0]!))[1]?.hostPath).toBe(target);
    const fresh = podWith([{ name: 'data', mountPath: '/x', subPath: 'logs' }]);
    const err = await rejection(
      vm.getMountsForContainer({ ...fresh, metadata: { ...fresh.metadata, uid: 'uid-t' } }, fresh.spec.containers[0]!),
    );
    expect(err).toMatchObject({ code: 'PATH_ESCAPE' });

    await vm.teardownPod('uid-s');
    expect(await mountsUnder(join(root, 'pods', 'uid-s'))).toHaveLength(0);
    // The volume's own content (a hostPath) survives teardown.
    expect(await readFile(join(vol, 'logs-old', 'app.log'), 'utf8')).toBe('inside');
  });

  it('wins the race: a symlink swapped in between the check and the mount does not redirect the bind mount', async () => {
    await mkdir(join(vol, 'logs'));
    await writeFile(join(vol, 'logs', 'app.log'), 'inside');
    const real = createSystemMounter();
    // The "container" swaps logs for a symlink to the host right before mount runs.
    const racing: Mounter = {
      list: () => real.list(),
      unmount: (target) => real.unmount(target),
      async mount(source, target, fsType, options) {
        await rename(join(vol, 'logs'), join(vol, 'logs-old'));
        await symlink(join(tmp.path, 'outside'), join(vol, 'logs'));
        await real.mount(source, target, fsType, options);
      },
    };
    const vm = createVolumeManager({ rootDir: root, mounter: racing, waitTimeoutMs: 0 });
    const pod = podWith([{ name: 'data', mountPath: '/logs', subPath: 'logs' }]);
    await vm.waitForAttachAndMount(pod);
    const [mount] = await vm.getMountsForContainer(pod, pod.spec.containers[0]!);
    expect(await readFile(join(mount!.hostPath, 'app.log'), 'utf8')).toBe('inside');
    await expect(readFile(join(mount!.hostPath, 'secret'))).rejects.toMatchObject({ code: 'ENOENT' });
    await vm.teardownPod('uid-s');
  });

  it('a file subPath is bind-mounted onto a file; subPathExpr expands the container env', async () => {
    await writeFile(join(vol, 'config.ini'), 'k=v');
    const vm = createVolumeManager({ rootDir: root, waitTimeoutMs: 0 });
    const pod = podWith([
      { name: 'data', mountPath: '/etc/config.ini', subPath: 'config.ini' },
      { name: 'data', mountPath: '/work', subPathExpr: '$(POD_DIR)/work' },
    ]);
    await vm.waitForAttachAndMount(pod);
    const [file, dir] = await vm.getMountsForContainer(pod, pod.spec.containers[0]!);
    expect(await readFile(file!.hostPath, 'utf8')).toBe('k=v');
    await writeFile(join(dir!.hostPath, 'out'), 'written');
    expect(await readFile(join(vol, 'by-env', 'work', 'out'), 'utf8')).toBe('written');
    await vm.teardownPod('uid-s');
    await rm(join(vol, 'by-env'), { recursive: true });
  });
});
