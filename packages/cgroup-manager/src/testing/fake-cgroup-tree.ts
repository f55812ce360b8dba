import { promises as fsp } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CgroupFs } from '../cgroup-fs.js';
import { errnoCode, nodeCgroupFs } from '../internal/fs.js';

export type FakeTreeMode = 'v1' | 'v2';

export interface FakeCgroupTreeOptions {
  mode: FakeTreeMode;
  /** Online cpus (`/sys/devices/system/cpu/online` gets `0-(cpus-1)`). Default 4. */
  cpus?: number;
  /** MemTotal. Default 8 GiB. */
  memoryBytes?: number;
  /** v1: also mount a hybrid cgroup2 at /sys/fs/cgroup/unified. Default true. */
  hybrid?: boolean;
}

/**
 * A fake machine in a temp dir for unit tests: `/proc/self/mountinfo`, `/proc/meminfo`,
 * `/sys/devices/system/cpu/online` and the cgroup mounts of a v1 hybrid (like this project's test
 * machines) or a v2 host. Its {@link CgroupFs} makes new cgroup directories with the control
 * files the kernel would create, and removes them like rmdir on cgroupfs does.
 */
export interface FakeCgroupTree {
  readonly fsRoot: string;
  readonly fs: CgroupFs;
  readonly mountinfo: string;
  /** Host path of a cgroup file: `file('cpu', '/kubepods/burstable', 'cpu.shares')` (controller ignored on v2). */
  path(controller: string, cgroupPath: string, file?: string): string;
  read(controller: string, cgroupPath: string, file: string): Promise<string>;
  write(controller: string, cgroupPath: string, file: string, value: string): Promise<void>;
  exists(controller: string, cgroupPath: string): Promise<boolean>;
  /** Makes the next `count` rmdir calls fail with EBUSY. */
  failRmdir(count: number, code?: string): void;
  cleanup(): Promise<void>;
}

const V1_CONTROLLERS = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'hugetlb', 'blkio', 'devices', 'freezer'];

function v1Files(controller: string): Record<string, string> {
  switch (controller) {
    case 'cpu':
      return { 'cpu.shares': '1024', 'cpu.cfs_quota_us': '-1', 'cpu.cfs_period_us': '100000' };
    case 'cpuacct':
      return { 'cpuacct.usage': '0' };
    case 'cpuset':
      return { 'cpuset.cpus': '', 'cpuset.mems': '' };
    case 'memory':
      return { 'memory.limit_in_bytes': '9223372036854771712', 'memory.usage_in_bytes': '0', 'memory.stat': 'total_inactive_file 0\n' };
    case 'pids':
      return { 'pids.max': 'max' };
    default:
      return {};
  }
}

const V2_FILES: Record<string, string> = {
  'cgroup.controllers': '',
  'cgroup.subtree_control': '',
  'cpu.weight': '100',
  'cpu.max': 'max 100000',
  'cpu.stat': 'usage_usec 0\n',
  'memory.max': 'max',
  'memory.current': '0',
  'memory.stat': 'inactive_file 0\n',
  'pids.max': 'max',
};

export async function createFakeCgroupTree(options: FakeCgroupTreeOptions): Promise<FakeCgroupTree> {
  const fsRoot = await fsp.mkdtemp(join(tmpdir(), `cgroup-tree-${options.mode}-`));
  const cpus = options.cpus ?? 4;
  const memoryBytes = options.memoryBytes ?? 8 * 1024 ** 3;
  const lines: string[] = [
    '22 1 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw',
    '25 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
  ];
  const controllerOf = new Map<string, string>();
  let id = 30;
  if (options.mode === 'v1') {
    lines.push(`${id++} 1 0:25 / /sys/fs/cgroup rw,nosuid,nodev,noexec shared:5 - tmpfs tmpfs ro,mode=755`);
    if (options.hybrid ?? true)
      lines.push(`${id++} 30 0:26 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:6 - cgroup2 cgroup2 rw,nsdelegate`);
    lines.push(`${id++} 30 0:27 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:7 - cgroup cgroup rw,xattr,name=systemd`);
    for (const c of V1_CONTROLLERS) {
      lines.push(`${id++} 30 0:${id} / /sys/fs/cgroup/${c} rw,nosuid,nodev,noexec,relatime shared:${id} - cgroup cgroup rw,${c}`);
      controllerOf.set(`/sys/fs/cgroup/${c}`, c);
    }
  } else {
    lines.push(
      `${id++} 1 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot`,
    );
  }
  const mountinfo = `${lines.join('\n')}\n`;
  await fsp.mkdir(join(fsRoot, 'proc/self'), { recursive: true });
  await fsp.mkdir(join(fsRoot, 'proc/sys/kernel'), { recursive: true });
  await fsp.mkdir(join(fsRoot, 'sys/devices/system/cpu'), { recursive: true });
  await fsp.writeFile(join(fsRoot, 'proc/self/mountinfo'), mountinfo);
  await fsp.writeFile(join(fsRoot, 'proc/meminfo'), `MemTotal:       ${memoryBytes / 1024} kB\nMemFree:        1000 kB\n`);
  await fsp.writeFile(join(fsRoot, 'proc/sys/kernel/pid_max'), '4194304\n');
  await fsp.writeFile(join(fsRoot, 'sys/devices/system/cpu/online'), cpus > 1 ? `0-${cpus - 1}\n` : '0\n');

  const mountOf = (dir: string): string | undefined => {
    const rel = dir.slice(fsRoot.length);
    if (options.mode === 'v2') return rel.startsWith('/sys/fs/cgroup') ? '/sys/fs/cgroup' : undefined;
    for (const m of [...controllerOf.keys(), '/sys/fs/cgroup/systemd', '/sys/fs/cgroup/unified'])
      if (rel === m || rel.startsWith(`${m}/`)) return m;
    return undefined;
  };
  const filesFor = (dir: string): Record<string, string> => {
    const mount = mountOf(dir);
    if (mount === undefined) return {};
    if (options.mode === 'v2') return V2_FILES;
    if (mount === '/sys/fs/cgroup/unified') return { 'cgroup.controllers': 'hugetlb', 'cgroup.subtree_control': '' };
    return v1Files(controllerOf.get(mount) ?? '');
  };
  const populate = async (dir: string): Promise<void> => {
    await fsp.writeFile(join(dir, 'cgroup.procs'), '');
    for (const [file, value] of Object.entries(filesFor(dir))) await fsp.writeFile(join(dir, file), value);
  };

  // Mount roots with the machine's values.
  if (options.mode === 'v1') {
    for (const [mount, c] of controllerOf) {
      const dir = join(fsRoot, mount);
      await fsp.mkdir(dir, { recursive: true });
      await populate(dir);
      if (c === 'cpuset') {
        await fsp.writeFile(join(dir, 'cpuset.cpus'), cpus > 1 ? `0-${cpus - 1}` : '0');
        await fsp.writeFile(join(dir, 'cpuset.mems'), '0');
      }
    }
    for (const m of ['/sys/fs/cgroup/systemd', '/sys/fs/cgroup/unified']) {
      await fsp.mkdir(join(fsRoot, m), { recursive: true });
      await populate(join(fsRoot, m));
    }
  } else {
    const dir = join(fsRoot, '/sys/fs/cgroup');
    await fsp.mkdir(dir, { recursive: true });
    await populate(dir);
    await fsp.writeFile(join(dir, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc');
  }

  let rmdirFailures = 0;
  let rmdirCode = 'EBUSY';
  const fs: CgroupFs = {
    readFile: (path) => fsp.readFile(path, 'utf8'),
    async writeFile(path, data) {
      // cgroupfs has no way to create a file: writing a missing control file fails.
      await fsp.access(path);
      if (path.endsWith('cgroup.subtree_control')) {
        const current = new Set((await fsp.readFile(path, 'utf8')).split(/\s+/).filter((c) => c !== ''));
        for (const op of data.split(/\s+/).filter((o) => o !== '')) {
          if (op.startsWith('+')) current.add(op.slice(1));
          else if (op.startsWith('-')) current.delete(op.slice(1));
        }
        await fsp.writeFile(path, [...current].join(' '));
        return;
      }
      await fsp.writeFile(path, data);
    },
    async mkdir(path) {
      try {
        await fsp.mkdir(path);
      } catch (err) {
        if (errnoCode(err) !== 'EEXIST') throw err;
        if ((await fsp.stat(path)).isDirectory()) return false;
        throw Object.assign(new Error(`ENOTDIR: ${path} exists and is not a directory`), { code: 'ENOTDIR', cause: err });
      }
      await populate(path);
      if (options.mode === 'v2') {
        // A child offers what its parent enabled for it.
        const parent = path.slice(0, path.lastIndexOf('/'));
        const enabled = await fsp.readFile(join(parent, 'cgroup.subtree_control'), 'utf8').catch(() => '');
        await fsp.writeFile(join(path, 'cgroup.controllers'), enabled);
      }
      return true;
    },
    async rmdir(path) {
      if (rmdirFailures > 0) {
        rmdirFailures--;
        throw Object.assign(new Error(`${rmdirCode}: resource busy, rmdir '${path}'`), { code: rmdirCode });
      }
      const entries = await fsp.readdir(path, { withFileTypes: true });
      if (entries.some((e) => e.isDirectory())) throw Object.assign(new Error(`ENOTEMPTY: rmdir '${path}'`), { code: 'ENOTEMPTY' });
      const procs = (await fsp.readFile(join(path, 'cgroup.procs'), 'utf8').catch(() => '')).trim();
      if (procs !== '') throw Object.assign(new Error(`EBUSY: rmdir '${path}'`), { code: 'EBUSY' });
      await fsp.rm(path, { recursive: true });
    },
    // Listing and stat behave as on a real cgroupfs.
    subdirs: nodeCgroupFs.subdirs,
    isDir: nodeCgroupFs.isDir,
  };

  const tree: FakeCgroupTree = {
    fsRoot,
    fs,
    mountinfo,
    path(controller, cgroupPath, file) {
      const base =
        options.mode === 'v2' ? '/sys/fs/cgroup' : controller === 'unified' ? '/sys/fs/cgroup/unified' : `/sys/fs/cgroup/${controller}`;
      const rel = cgroupPath.replace(/^\/+/, '');
      return join(fsRoot, base, rel, file ?? '');
    },
    read: (controller, cgroupPath, file) => fsp.readFile(tree.path(controller, cgroupPath, file), 'utf8').then((s) => s.trim()),
    write: (controller, cgroupPath, file, value) => fsp.writeFile(tree.path(controller, cgroupPath, file), value),
    async exists(controller, cgroupPath) {
      return fs.isDir(tree.path(controller, cgroupPath));
    },
    failRmdir(count, code = 'EBUSY') {
      rmdirFailures = count;
      rmdirCode = code;
    },
    cleanup: () => fsp.rm(fsRoot, { recursive: true, force: true }),
  };
  return tree;
}
