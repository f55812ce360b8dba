import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, mountsUnder } from './internal/test-dirs.js';
import type { TempDir } from './internal/test-dirs.js';
import { createSystemMounter, isMountPoint, parseMountInfo } from './mounter.js';

describe('parseMountInfo', () => {
  it('parses fields, optional fields and octal escapes', () => {
    const text = [
      '36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw,errors=continue',
      '40 25 0:45 / /var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/cache rw,relatime - tmpfs tmpfs rw,size=1024k',
      'garbage',
    ].join('\n');
    const mounts = parseMountInfo(text);
    expect(mounts).toHaveLength(2);
    expect(mounts[0]).toMatchObject({ id: 36, parentId: 35, root: '/mnt1', mountPoint: '/mnt/with space', fsType: 'ext3', source: '/dev/root', options: ['rw', 'noatime'] });
    expect(mounts[1]).toMatchObject({ fsType: 'tmpfs', superOptions: ['rw', 'size=1024k'] });
    expect(isMountPoint(mounts, '/mnt/with space')).toBe(true);
    expect(isMountPoint(mounts, '/mnt')).toBe(false);
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
    await expect(mounter.mount('tmpfs', join(tmp.path, 'missing'), 'tmpfs', [])).rejects.toMatchObject({ name: 'VolumeError', code: 'MOUNT_FAILED' });
  });
});
