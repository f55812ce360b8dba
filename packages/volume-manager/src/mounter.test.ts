import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseMountInfo } from '@kubelet-ts/common';
import { makeTempDir, mountsUnder } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter, isMountPoint } from './mounter.js';

describe('isMountPoint', () => {
  it('matches unescaped mount points exactly', () => {
    const mounts = parseMountInfo('40 25 0:45 / /var/lib/kubelet/pods/u/volumes/a\\040b rw - tmpfs tmpfs rw\n');
    expect(isMountPoint(mounts, '/var/lib/kubelet/pods/u/volumes/a b')).toBe(true);
    expect(isMountPoint(mounts, '/var/lib/kubelet/pods/u/volumes')).toBe(false);
  });
});

describe('createSystemMounter (real mounts, as root)', () => {
  let tmp: TempDir;
  beforeEach(async () => {
    tmp = await makeTempDir();
  });
  afterEach(async () => {
    await tmp.cleanup();
  });

  it('mounts a sized tmpfs, lists it and unmounts it', async () => {
    const mounter = createSystemMounter();
    const target = join(tmp.path, 'tmpfs');
    await mkdir(target);
    await mounter.mount('tmpfs', target, 'tmpfs', ['size=1048576']);
    const [mount] = await mountsUnder(target);
    expect(mount?.fsType).toBe('tmpfs');
    expect(mount?.superOptions).toContain('size=1024k');
    expect(isMountPoint(await mounter.list(), target)).toBe(true);
    await mounter.unmount(target);
    expect(await mountsUnder(target)).toHaveLength(0);
  });

  it('bind-mounts read-only: writes through the mount fail', async () => {
    const mounter = createSystemMounter();
    const source = join(tmp.path, 'src');
    const target = join(tmp.path, 'dst');
    await mkdir(source);
    await mkdir(target);
    await writeFile(join(source, 'f'), 'hello');
    await mounter.mount(source, target, '', ['bind', 'ro']);
    expect(await readFile(join(target, 'f'), 'utf8')).toBe('hello');
    await expect(writeFile(join(target, 'g'), 'x')).rejects.toMatchObject({ code: 'EROFS' });
    const [mount] = await mountsUnder(target);
    expect(mount?.options).toContain('ro');
  });

  it('reports a failed mount with the command output', async () => {
    const mounter = createSystemMounter();
    await expect(mounter.mount('tmpfs', join(tmp.path, 'missing'), 'tmpfs', [])).rejects.toMatchObject({
      name: 'VolumeError',
      code: 'MOUNT_FAILED',
    });
  });
});
