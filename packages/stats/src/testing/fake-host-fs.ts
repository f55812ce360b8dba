import { dirname, normalize } from 'node:path';
import type { HostDirEntry, HostFileStat, HostFs, StatfsInfo } from '../host.js';

interface Entry {
  kind: 'file' | 'dir';
  content: string;
  blocks: number;
  dev: number;
  ino: number;
}

function notFound(syscall: string, path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, ${syscall} '${path}'`), { code: 'ENOENT', syscall, path });
}

/**
 * An in-memory {@link HostFs}: files with their content and allocated blocks (512-byte units,
 * default ceil(size / 4096) × 8 as on a 4 KiB-block filesystem), directories, and statfs answers by
 * mount point (the longest prefix wins). `failNext(path, err)` makes the next access to a path fail.
 */
export class FakeHostFs implements HostFs {
  readonly #entries = new Map<string, Entry>([['/', { kind: 'dir', content: '', blocks: 8, dev: 1, ino: 1 }]]);
  readonly #statfs = new Map<string, StatfsInfo>();
  readonly #devs = new Map<string, number>();
  readonly #errors = new Map<string, unknown[]>();
  #nextIno = 2;

  /** Writes a file (creating its parent directories); `blocks` overrides the allocated size. */
  setFile(path: string, content: string, options: { blocks?: number; ino?: number } = {}): this {
    const p = normalize(path);
    this.mkdir(dirname(p));
    const blocks = options.blocks ?? Math.ceil(Buffer.byteLength(content) / 4096) * 8;
    this.#entries.set(p, { kind: 'file', content, blocks, dev: this.#devOf(p), ino: options.ino ?? this.#nextIno++ });
    return this;
  }

  /** Creates a directory and its parents. */
  mkdir(path: string): this {
    const p = normalize(path);
    if (this.#entries.has(p)) return this;
    if (p !== '/') this.mkdir(dirname(p));
    this.#entries.set(p, { kind: 'dir', content: '', blocks: 8, dev: this.#devOf(p), ino: this.#nextIno++ });
    return this;
  }

  /** Removes a file or a directory with everything under it. */
  remove(path: string): this {
    const p = normalize(path);
    for (const key of [...this.#entries.keys()]) if (key === p || key.startsWith(`${p}/`)) this.#entries.delete(key);
    return this;
  }

  /** What statfs answers for paths under `mountpoint`; `device` makes it a separate filesystem (du -x stops there). */
  setStatfs(mountpoint: string, info: Partial<StatfsInfo> & { blocks: number }, options: { device?: number } = {}): this {
    const p = normalize(mountpoint);
    this.#statfs.set(p, { bsize: 4096, bfree: info.blocks, bavail: info.blocks, files: 1_000_000, ffree: 1_000_000, ...info });
    if (options.device !== undefined) this.#devs.set(p, options.device);
    return this;
  }

  /** The next access (any method) to `path` rejects with `err`. */
  failNext(path: string, err: unknown): this {
    const p = normalize(path);
    this.#errors.set(p, [...(this.#errors.get(p) ?? []), err]);
    return this;
  }

  #maybeFail(path: string): void {
    const list = this.#errors.get(path);
    const err = list?.shift();
    if (list !== undefined && list.length === 0) this.#errors.delete(path);
    if (err !== undefined) throw err;
  }

  #longestPrefix<T>(map: Map<string, T>, path: string): T | undefined {
    let best: string | undefined;
    for (const key of map.keys()) {
      if ((path === key || path.startsWith(key === '/' ? '/' : `${key}/`)) && (best === undefined || key.length > best.length)) best = key;
    }
    return best === undefined ? undefined : map.get(best);
  }

  #devOf(path: string): number {
    return this.#longestPrefix(this.#devs, path) ?? 1;
  }

  async readFile(path: string): Promise<string> {
    const p = normalize(path);
    this.#maybeFail(p);
    const e = this.#entries.get(p);
    if (e === undefined) throw notFound('open', p);
    if (e.kind === 'dir') throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR' });
    return e.content;
  }

  async statfs(path: string): Promise<StatfsInfo> {
    const p = normalize(path);
    this.#maybeFail(p);
    if (!this.#entries.has(p)) throw notFound('statfs', p);
    const info = this.#longestPrefix(this.#statfs, p);
    if (info === undefined) throw notFound('statfs', p);
    return { ...info };
  }

  async readdir(path: string): Promise<HostDirEntry[]> {
    const p = normalize(path);
    this.#maybeFail(p);
    const e = this.#entries.get(p);
    if (e === undefined) throw notFound('scandir', p);
    if (e.kind !== 'dir') throw Object.assign(new Error(`ENOTDIR: not a directory, scandir '${p}'`), { code: 'ENOTDIR' });
    const out: HostDirEntry[] = [];
    for (const [key, entry] of this.#entries) {
      if (key !== p && dirname(key) === p)
        out.push({ name: key.slice(p === '/' ? 1 : p.length + 1), isFile: entry.kind === 'file', isDirectory: entry.kind === 'dir' });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async lstat(path: string): Promise<HostFileStat> {
    const p = normalize(path);
    this.#maybeFail(p);
    const e = this.#entries.get(p);
    if (e === undefined) throw notFound('lstat', p);
    return {
      size: Buffer.byteLength(e.content),
      blocks: e.blocks,
      dev: e.dev,
      ino: e.ino,
      isFile: e.kind === 'file',
      isDirectory: e.kind === 'dir',
    };
  }
}

export interface FakeNodeHostOptions {
  /** Default 'v1' (separate cpuacct and memory hierarchies under /sys/fs/cgroup). */
  cgroupMode?: 'v1' | 'v2';
  /** /proc/meminfo MemTotal; default 8 GiB. */
  memTotalBytes?: number;
  /** Root cgroup memory usage (v1 usage_in_bytes; v2 anon + file); default 3 GiB. */
  memoryUsageBytes?: number;
  /** Inactive file pages of the root cgroup; default 1 GiB. */
  inactiveFileBytes?: number;
  /** Root cgroup cumulative CPU, ns; default 1000 s. */
  cpuUsageNs?: number;
  /** /proc/stat btime, s; default 1767225600 (2026-01-01). */
  bootTimeSeconds?: number;
  pidMax?: number;
  threadsMax?: number;
  /** Tasks in /proc/loadavg; default 321. */
  tasks?: number;
  /** The kubelet root dir, with a statfs answer: 100 GiB, 40 GiB free, 30 GiB available. */
  rootDir?: string;
}

/** A FakeHostFs holding a node's /proc and root cgroup files, and a statfs answer for its root dir. */
export function newFakeNodeHost(options: FakeNodeHostOptions = {}): FakeHostFs {
  const fs = new FakeHostFs();
  const usage = options.memoryUsageBytes ?? 3 * 1024 ** 3;
  const inactive = options.inactiveFileBytes ?? 1024 ** 3;
  const cpu = options.cpuUsageNs ?? 1_000_000_000_000;
  fs.setFile('/proc/meminfo', `MemTotal:       ${(options.memTotalBytes ?? 8 * 1024 ** 3) / 1024} kB\nMemFree:         1000 kB\n`);
  fs.setFile(
    '/proc/stat',
    `cpu  100 0 50 1000 0 0 0 0 0 0\ncpu0 100 0 50 1000 0 0 0 0 0 0\nbtime ${options.bootTimeSeconds ?? 1_767_225_600}\n`,
  );
  fs.setFile('/proc/sys/kernel/pid_max', `${options.pidMax ?? 4_194_304}\n`);
  fs.setFile('/proc/sys/kernel/threads-max', `${options.threadsMax ?? 192_729}\n`);
  fs.setFile(
    '/proc/net/dev',
    [
      'Inter-|   Receive                                                |  Transmit',
      ' face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed',
      '    lo: 900 9 0 0 0 0 0 0 900 9 0 0 0 0 0 0',
      '  eth0: 1000 10 1 0 0 0 0 0 2000 20 2 0 0 0 0 0',
      'veth12: 5 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0',
      '  kts0: 300 3 0 0 0 0 0 0 400 4 0 0 0 0 0 0',
      '',
    ].join('\n'),
  );
  fs.setFile('/proc/loadavg', `0.67 2.31 5.54 3/${options.tasks ?? 321} 1975\n`);
  if ((options.cgroupMode ?? 'v1') === 'v1') {
    fs.setFile('/sys/fs/cgroup/cpuacct/cpuacct.usage', `${cpu}\n`);
    fs.setFile('/sys/fs/cgroup/memory/memory.usage_in_bytes', `${usage}\n`);
    fs.setFile(
      '/sys/fs/cgroup/memory/memory.stat',
      `cache 100\nrss 200\ntotal_cache ${usage / 2}\ntotal_rss ${usage / 2}\ntotal_pgfault 1000\ntotal_pgmajfault 10\ntotal_inactive_file ${inactive}\n`,
    );
  } else {
    fs.setFile('/sys/fs/cgroup/cgroup.controllers', 'cpuset cpu io memory pids\n');
    fs.setFile('/sys/fs/cgroup/cpu.stat', `usage_usec ${cpu / 1000}\nuser_usec 1\nsystem_usec 1\n`);
    fs.setFile(
      '/sys/fs/cgroup/memory.stat',
      `anon ${usage / 2}\nfile ${usage / 2}\ninactive_file ${inactive}\npgfault 1000\npgmajfault 10\n`,
    );
  }
  const rootDir = options.rootDir ?? '/var/lib/kubelet';
  fs.mkdir(rootDir);
  const GiB = 1024 ** 3;
  fs.setStatfs(rootDir, {
    bsize: 4096,
    blocks: (100 * GiB) / 4096,
    bfree: (40 * GiB) / 4096,
    bavail: (30 * GiB) / 4096,
    files: 1_000_000,
    ffree: 600_000,
  });
  return fs;
}
