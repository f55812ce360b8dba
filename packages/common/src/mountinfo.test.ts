import { parseMountInfo } from './index.js';

describe('parseMountInfo', () => {
  it('parses fields, optional fields and octal escapes, and skips lines that do not parse', () => {
    const text = [
      '36 35 98:0 /mnt1 /mnt/with\\040space rw,noatime master:1 - ext3 /dev/root rw,errors=continue',
      '40 25 0:45 / /var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/cache rw,relatime - tmpfs tmpfs rw,size=1024k',
      '31 23 0:27 /kubepods /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,memory',
      'garbage',
      '1 2 3 4 5 6 - too-short',
    ].join('\n');
    const mounts = parseMountInfo(text);
    expect(mounts).toHaveLength(3);
    expect(mounts[0]).toEqual({
      id: 36,
      parentId: 35,
      root: '/mnt1',
      mountPoint: '/mnt/with space',
      options: ['rw', 'noatime'],
      fsType: 'ext3',
      source: '/dev/root',
      superOptions: ['rw', 'errors=continue'],
    });
    expect(mounts[1]).toMatchObject({ fsType: 'tmpfs', superOptions: ['rw', 'size=1024k'] });
    expect(mounts[2]).toMatchObject({
      root: '/kubepods',
      mountPoint: '/sys/fs/cgroup/memory',
      fsType: 'cgroup',
      superOptions: ['rw', 'memory'],
    });
  });
});
