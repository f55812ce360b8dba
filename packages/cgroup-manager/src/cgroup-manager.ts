import type { Clock, Histogram, Logger, Metrics } from '@kubelet-ts/common';
import { DEFAULT_BUCKETS, errorMessage, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { CgroupDriver, CgroupName } from './cgroup-name.js';
import { renderCgroupName, toCgroupfs, toSystemd } from './cgroup-name.js';
import { CgroupError } from './errors.js';
import type { CgroupFs } from './cgroup-fs.js';
import { errnoCode, nodeCgroupFs } from './internal/fs.js';
import type { CgroupLayout, CgroupMount } from './internal/mountinfo.js';
import { cgroupLayout, mountPath, parseCgroupMounts } from './internal/mountinfo.js';
import type { ResourceConfig } from './resources.js';
import { cpuSharesToWeight } from './resources.js';
import type { SystemdClient } from './systemd.js';
import { createUnavailableSystemdClient, systemdProperties, systemdUnit } from './systemd.js';

export type CgroupMode = 'v1' | 'v2';

/** CPU and memory usage of one cgroup (for eviction and stats). */
export interface CgroupStats {
  /** Cumulative CPU time, ns (v1 cpuacct.usage, v2 cpu.stat usage_usec × 1000). */
  cpuUsageNanoseconds: number;
  /** v1 memory.usage_in_bytes, v2 memory.current. */
  memoryUsageBytes: number;
  /** Usage minus inactive file pages (what eviction and `kubectl top` use), never negative. */
  memoryWorkingSetBytes: number;
}

/**
 * Creates, updates and removes cgroups by {@link CgroupName} (upstream cm.CgroupManager), on
 * cgroup v1 (every hierarchy) or v2 (unified), through the cgroupfs or the systemd driver.
 */
export interface CgroupManager {
  readonly driver: CgroupDriver;
  /** v1 or v2, detected from mountinfo (memoized). */
  mode(): Promise<CgroupMode>;
  /** The name as the driver spells it: `/kubepods/burstable/pod…` or `/kubepods.slice/…`. */
  name(name: CgroupName): string;
  /** Creates the cgroup (and its parents) and applies `resources`. Idempotent. */
  create(name: CgroupName, resources?: ResourceConfig): Promise<void>;
  update(name: CgroupName, resources: ResourceConfig): Promise<void>;
  /** True when the cgroup exists in every hierarchy the kubelet needs (cpu, cpuacct, cpuset, memory, pids, hugetlb where mounted). */
  exists(name: CgroupName): Promise<boolean>;
  /** Removes the cgroup and its child cgroups in every hierarchy; retries while busy. Missing is fine. */
  destroy(name: CgroupName): Promise<void>;
  /** Process IDs in the cgroup and its descendants. */
  pids(name: CgroupName): Promise<number[]>;
  /** Names of the child cgroups (directory names as on disk). */
  children(name: CgroupName): Promise<string[]>;
  stats(name: CgroupName): Promise<CgroupStats>;
  /** The on-disk directory of the cgroup for a controller (`cpu`, `memory`…; ignored on v2). */
  path(name: CgroupName, controller: string): Promise<string | undefined>;
}

export interface CgroupManagerOptions {
  driver?: CgroupDriver;
  /** Prefix of every host path (`/proc/self/mountinfo`, the mount points): a fake tree in tests. Default `/`. */
  fsRoot?: string;
  /** mountinfo text instead of reading `<fsRoot>/proc/self/mountinfo`. */
  mountinfo?: string;
  /** Filesystem operations (tests use the fake tree's). */
  fs?: CgroupFs;
  /** The systemd driver's client (default: one that reports systemd unreachable). */
  systemd?: SystemdClient;
  /** rmdir retries while a cgroup is busy (default 5, 100 ms apart). */
  destroyRetries?: number;
  destroyRetryDelayMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Upstream's kubelet_cgroup_manager_duration_seconds{operation_type}: each create, update and destroy, timed. Default: none. */
  metrics?: Metrics;
}

/** The v1 controllers a kubelet cgroup must exist in (upstream: cpu, cpuacct, cpuset, memory, and pids/hugetlb when present). */
const REQUIRED_V1 = ['cpu', 'cpuacct', 'cpuset', 'memory'];
const OPTIONAL_V1 = ['pids', 'hugetlb'];
/** Controllers enabled for children on v2 (when the parent offers them). */
const V2_CONTROLLERS = ['cpu', 'cpuset', 'memory', 'pids', 'hugetlb', 'io'];

function parseKeyValues(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key !== undefined && value !== undefined) out.set(key, Number(value));
  }
  return out;
}

class FsCgroupManager implements CgroupManager {
  readonly driver: CgroupDriver;
  readonly #fsRoot: string;
  readonly #fs: CgroupFs;
  readonly #mountinfo: string | undefined;
  readonly #systemd: SystemdClient;
  readonly #retries: number;
  readonly #retryDelayMs: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #duration: Histogram<'operation_type'>;
  #layout: Promise<CgroupLayout> | undefined;

  constructor(options: CgroupManagerOptions) {
    this.driver = options.driver ?? 'cgroupfs';
    this.#fsRoot = (options.fsRoot ?? '/').replace(/\/+$/, '');
    this.#fs = options.fs ?? nodeCgroupFs;
    this.#mountinfo = options.mountinfo;
    this.#systemd = options.systemd ?? createUnavailableSystemdClient(options.fsRoot !== undefined ? { fsRoot: options.fsRoot } : {});
    this.#retries = options.destroyRetries ?? 5;
    this.#retryDelayMs = options.destroyRetryDelayMs ?? 100;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#duration = (options.metrics ?? noopMetrics).histogram<'operation_type'>({
      name: 'kubelet_cgroup_manager_duration_seconds',
      help: 'Duration in seconds for cgroup manager operations. Broken down by method.',
      labelNames: ['operation_type'],
      buckets: DEFAULT_BUCKETS,
    });
  }

  /** Times one operation, failed or not (upstream observes in a defer). */
  async #timed(operation: 'create' | 'update' | 'destroy', run: () => Promise<void>): Promise<void> {
    const start = this.#clock.now();
    try {
      await run();
    } finally {
      this.#duration.observe({ operation_type: operation }, (this.#clock.now() - start) / 1000);
    }
  }

  #loadLayout(): Promise<CgroupLayout> {
    this.#layout ??= (async () => {
      let text = this.#mountinfo;
      if (text === undefined) {
        const file = `${this.#fsRoot}/proc/self/mountinfo`;
        try {
          text = await this.#fs.readFile(file);
        } catch (err) {
          throw CgroupError.from(err, 'NOT_MOUNTED', `cannot read ${file}`);
        }
      }
      const layout = cgroupLayout(parseCgroupMounts(text));
      if (layout.mode === 'v1') {
        const missing = REQUIRED_V1.filter((c) => !layout.v1.has(c));
        if (missing.length > 0) throw new CgroupError('NOT_MOUNTED', `cgroup v1 controllers not mounted: ${missing.join(', ')}`);
      }
      return layout;
    })();
    this.#layout.catch(() => {
      this.#layout = undefined;
    });
    return this.#layout;
  }

  async mode(): Promise<CgroupMode> {
    return (await this.#loadLayout()).mode;
  }

  name(name: CgroupName): string {
    return renderCgroupName(name, this.driver);
  }

  /** The cgroup path as it appears in the hierarchy (what the driver writes there). */
  #cgroupPath(name: CgroupName): string {
    return this.driver === 'systemd' ? toSystemd(name) : toCgroupfs(name);
  }

  #dir(mount: CgroupMount, cgroupPath: string): string {
    return `${this.#fsRoot}${mountPath(mount, cgroupPath)}`;
  }

  /** Mounts the kubelet manages a cgroup in, with the controller that decides it. */
  #managedMounts(layout: CgroupLayout): CgroupMount[] {
    if (layout.mode === 'v2') return layout.unified === undefined ? [] : [layout.unified];
    // Every v1 hierarchy, as libcontainer's cgroupfs manager does, so that the runtime finds the parent everywhere.
    return layout.mounts.filter((m) => m.version === 1);
  }

  /** Every mount, including the hybrid unified one where the runtime may also have made directories. */
  #allMounts(layout: CgroupLayout): CgroupMount[] {
    return layout.mounts;
  }

  async path(name: CgroupName, controller: string): Promise<string | undefined> {
    const layout = await this.#loadLayout();
    const mount = layout.mode === 'v2' ? layout.unified : layout.v1.get(controller);
    return mount === undefined ? undefined : this.#dir(mount, this.#cgroupPath(name));
  }

  async #mkdirLevels(mount: CgroupMount, name: CgroupName, mode: CgroupMode): Promise<void> {
    const isCpuset = mount.controllers.includes('cpuset');
    const prefix =
      this.driver === 'systemd'
        ? toSystemd(name)
            .split('/')
            .filter((p) => p !== '')
        : [...name];
    // v1: the parents usually exist (a pod under its QoS tier), so the leaf alone is tried first: one mkdir per
    // hierarchy instead of one per level. v2 walks the levels, as each parent must enable the controllers.
    if (mode === 'v1' && prefix.length > 1) {
      const parentDir = [this.#dir(mount, '/'), ...prefix.slice(0, -1)].join('/');
      const leaf = `${parentDir}/${prefix.at(-1)}`;
      try {
        if (await this.#fs.mkdir(leaf)) {
          if (isCpuset) await this.#copyCpuset(parentDir, leaf);
        }
        return;
      } catch (err) {
        if (errnoCode(err) !== 'ENOENT') throw err;
      }
    }
    let parent = this.#dir(mount, '/');
    for (const component of prefix) {
      const dir = `${parent}/${component}`;
      // v2: a child only gets the controllers its parent enabled in cgroup.subtree_control.
      if (mode === 'v2') await this.#enableControllers(parent);
      const created = await this.#fs.mkdir(dir);
      // New v1 cpuset cgroups start with empty cpus/mems, where no task can run: inherit the parent's.
      if (isCpuset && created) await this.#copyCpuset(parent, dir);
      parent = dir;
    }
  }

  async #copyCpuset(parent: string, dir: string): Promise<void> {
    for (const file of ['cpuset.cpus', 'cpuset.mems']) {
      const current = (await this.#fs.readFile(`${dir}/${file}`).catch(() => '')).trim();
      if (current !== '') continue;
      const value = (await this.#fs.readFile(`${parent}/${file}`)).trim();
      if (value !== '') await this.#fs.writeFile(`${dir}/${file}`, value);
    }
  }

  async #enableControllers(parent: string): Promise<void> {
    const available = (await this.#fs.readFile(`${parent}/cgroup.controllers`).catch(() => '')).split(/\s+/).filter((c) => c !== '');
    const enabled = new Set((await this.#fs.readFile(`${parent}/cgroup.subtree_control`).catch(() => '')).split(/\s+/));
    const wanted = V2_CONTROLLERS.filter((c) => available.includes(c) && !enabled.has(c));
    if (wanted.length === 0) return;
    await this.#fs.writeFile(`${parent}/cgroup.subtree_control`, wanted.map((c) => `+${c}`).join(' '));
  }

  create(name: CgroupName, resources: ResourceConfig = {}): Promise<void> {
    return this.#timed('create', () => this.#create(name, resources));
  }

  update(name: CgroupName, resources: ResourceConfig): Promise<void> {
    return this.#timed('update', () => this.#update(name, resources));
  }

  destroy(name: CgroupName): Promise<void> {
    return this.#timed('destroy', () => this.#destroy(name));
  }

  async #create(name: CgroupName, resources: ResourceConfig): Promise<void> {
    const layout = await this.#loadLayout();
    if (this.driver === 'systemd') {
      const { unit } = systemdUnit(name);
      await this.#systemd.startTransientUnit(unit, [
        { name: 'Description', value: `libcontainer container ${unit}` },
        { name: 'Wants', value: systemdUnit(name).slice },
        { name: 'DefaultDependencies', value: false },
        { name: 'Delegate', value: true },
        ...systemdProperties(resources, layout.mode),
      ]);
      return;
    }
    const cgroupPath = this.#cgroupPath(name);
    // The v1 hierarchies are independent trees: made side by side (a pod's start waits for all of them).
    await Promise.all(
      this.#managedMounts(layout).map(async (mount) => {
        try {
          await this.#mkdirLevels(mount, name, layout.mode);
        } catch (err) {
          throw CgroupError.from(err, 'IO', `failed to create cgroup ${cgroupPath} in ${mount.mountPoint}`);
        }
      }),
    );
    // Part of the create (upstream's libcontainer Apply and Set), not an update of its own.
    await this.#update(name, resources);
  }

  async #update(name: CgroupName, resources: ResourceConfig): Promise<void> {
    const layout = await this.#loadLayout();
    if (this.driver === 'systemd') {
      await this.#systemd.setUnitProperties(systemdUnit(name).unit, systemdProperties(resources, layout.mode));
      return;
    }
    const cgroupPath = this.#cgroupPath(name);
    const write = async (mount: CgroupMount | undefined, file: string, value: string): Promise<void> => {
      if (mount === undefined) return;
      const target = `${this.#dir(mount, cgroupPath)}/${file}`;
      try {
        await this.#fs.writeFile(target, value);
      } catch (err) {
        throw CgroupError.from(err, 'IO', `failed to write ${JSON.stringify(value)} to ${target}`);
      }
    };
    if (layout.mode === 'v1') {
      const cpu = layout.v1.get('cpu');
      if (resources.cpuShares !== undefined) await write(cpu, 'cpu.shares', String(resources.cpuShares));
      if (resources.cpuPeriodUs !== undefined) await write(cpu, 'cpu.cfs_period_us', String(resources.cpuPeriodUs));
      if (resources.cpuQuotaUs !== undefined) await write(cpu, 'cpu.cfs_quota_us', String(resources.cpuQuotaUs));
      if (resources.memoryLimitBytes !== undefined)
        await write(layout.v1.get('memory'), 'memory.limit_in_bytes', String(resources.memoryLimitBytes));
      if (resources.pidsLimit !== undefined)
        await write(layout.v1.get('pids'), 'pids.max', resources.pidsLimit < 0 ? 'max' : String(resources.pidsLimit));
      return;
    }
    const unified = layout.unified;
    if (resources.cpuShares !== undefined) await write(unified, 'cpu.weight', String(cpuSharesToWeight(resources.cpuShares)));
    if (resources.cpuQuotaUs !== undefined || resources.cpuPeriodUs !== undefined) {
      const quota = resources.cpuQuotaUs === undefined || resources.cpuQuotaUs < 0 ? 'max' : String(resources.cpuQuotaUs);
      await write(unified, 'cpu.max', `${quota} ${resources.cpuPeriodUs ?? 100_000}`);
    }
    if (resources.memoryLimitBytes !== undefined)
      await write(unified, 'memory.max', resources.memoryLimitBytes < 0 ? 'max' : String(resources.memoryLimitBytes));
    if (resources.pidsLimit !== undefined) await write(unified, 'pids.max', resources.pidsLimit < 0 ? 'max' : String(resources.pidsLimit));
  }

  async exists(name: CgroupName): Promise<boolean> {
    const layout = await this.#loadLayout();
    const cgroupPath = this.#cgroupPath(name);
    if (layout.mode === 'v2') return layout.unified !== undefined && this.#fs.isDir(this.#dir(layout.unified, cgroupPath));
    const controllers = [...REQUIRED_V1, ...OPTIONAL_V1.filter((c) => layout.v1.has(c))];
    for (const c of controllers) {
      const mount = layout.v1.get(c);
      if (mount === undefined || !(await this.#fs.isDir(this.#dir(mount, cgroupPath)))) return false;
    }
    return true;
  }

  async #removeTree(dir: string): Promise<void> {
    if (!(await this.#fs.isDir(dir))) return;
    for (const child of await this.#fs.subdirs(dir)) await this.#removeTree(`${dir}/${child}`);
    try {
      await this.#fs.rmdir(dir);
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT') throw err;
    }
  }

  async #destroy(name: CgroupName): Promise<void> {
    const layout = await this.#loadLayout();
    if (this.driver === 'systemd') {
      await this.#systemd.stopUnit(systemdUnit(name).unit);
      return;
    }
    const cgroupPath = this.#cgroupPath(name);
    const dirs = this.#allMounts(layout).map((m) => this.#dir(m, cgroupPath));
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.#retries; attempt++) {
      lastError = undefined;
      for (const dir of dirs) {
        try {
          await this.#removeTree(dir);
        } catch (err) {
          lastError = err;
        }
      }
      if (lastError === undefined) return;
      const code = errnoCode(lastError);
      if (code !== 'EBUSY' && code !== 'ENOTEMPTY') break;
      this.#logger.debug('Cgroup busy, retrying removal', { cgroup: cgroupPath, attempt, err: errorMessage(lastError) });
      if (attempt < this.#retries) await this.#clock.sleep(this.#retryDelayMs);
    }
    const busy = errnoCode(lastError) === 'EBUSY' || errnoCode(lastError) === 'ENOTEMPTY';
    throw CgroupError.from(lastError, busy ? 'BUSY' : 'IO', `failed to remove cgroup ${cgroupPath}`);
  }

  async #procs(dir: string, out: Set<number>): Promise<void> {
    if (!(await this.#fs.isDir(dir))) return;
    const text = await this.#fs.readFile(`${dir}/cgroup.procs`).catch(() => '');
    for (const line of text.split('\n')) {
      const pid = Number(line.trim());
      if (line.trim() !== '' && Number.isInteger(pid) && pid > 0) out.add(pid);
    }
    for (const child of await this.#fs.subdirs(dir).catch(() => [])) await this.#procs(`${dir}/${child}`, out);
  }

  async pids(name: CgroupName): Promise<number[]> {
    const layout = await this.#loadLayout();
    const out = new Set<number>();
    const cgroupPath = this.#cgroupPath(name);
    for (const mount of this.#allMounts(layout)) await this.#procs(this.#dir(mount, cgroupPath), out);
    return [...out].sort((a, b) => a - b);
  }

  async children(name: CgroupName): Promise<string[]> {
    const layout = await this.#loadLayout();
    const mount = layout.mode === 'v2' ? layout.unified : (layout.v1.get('cpu') ?? layout.v1.get('memory'));
    if (mount === undefined) return [];
    return this.#fs.subdirs(this.#dir(mount, this.#cgroupPath(name))).catch((err: unknown) => {
      if (errnoCode(err) === 'ENOENT' || errnoCode(err) === 'ENOTDIR') return [];
      throw CgroupError.from(err, 'IO', `failed to list cgroup ${this.#cgroupPath(name)}`);
    });
  }

  async stats(name: CgroupName): Promise<CgroupStats> {
    const layout = await this.#loadLayout();
    const cgroupPath = this.#cgroupPath(name);
    const read = async (mount: CgroupMount | undefined, file: string): Promise<string> => {
      if (mount === undefined) throw new CgroupError('NOT_MOUNTED', `no hierarchy for ${file}`);
      const target = `${this.#dir(mount, cgroupPath)}/${file}`;
      try {
        return await this.#fs.readFile(target);
      } catch (err) {
        throw CgroupError.from(err, 'IO', `failed to read ${target}`);
      }
    };
    if (layout.mode === 'v1') {
      const cpuUsageNanoseconds = Number((await read(layout.v1.get('cpuacct'), 'cpuacct.usage')).trim());
      const memory = layout.v1.get('memory');
      const memoryUsageBytes = Number((await read(memory, 'memory.usage_in_bytes')).trim());
      // cadvisor's v1 working set: usage minus total_inactive_file.
      const inactive = parseKeyValues(await read(memory, 'memory.stat')).get('total_inactive_file') ?? 0;
      return { cpuUsageNanoseconds, memoryUsageBytes, memoryWorkingSetBytes: Math.max(0, memoryUsageBytes - inactive) };
    }
    const unified = layout.unified;
    const cpuUsageNanoseconds = (parseKeyValues(await read(unified, 'cpu.stat')).get('usage_usec') ?? 0) * 1000;
    const memoryUsageBytes = Number((await read(unified, 'memory.current')).trim());
    const inactive = parseKeyValues(await read(unified, 'memory.stat')).get('inactive_file') ?? 0;
    return { cpuUsageNanoseconds, memoryUsageBytes, memoryWorkingSetBytes: Math.max(0, memoryUsageBytes - inactive) };
  }
}

export function createCgroupManager(options: CgroupManagerOptions = {}): CgroupManager {
  return new FsCgroupManager(options);
}
