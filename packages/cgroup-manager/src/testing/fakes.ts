import type { Pod } from '@kubelet-ts/api';
import type { CgroupManager, CgroupMode, CgroupStats } from '../cgroup-manager.js';
import type { CgroupDriver, CgroupName } from '../cgroup-name.js';
import { renderCgroupName, toCgroupfs } from '../cgroup-name.js';
import type { PodCgroups } from '../container-manager.js';
import type { ResourceConfig } from '../resources.js';

export type FakeCgroupCall =
  | { method: 'create'; name: string; resources: ResourceConfig }
  | { method: 'update'; name: string; resources: ResourceConfig }
  | { method: 'destroy'; name: string };

/**
 * An in-memory {@link CgroupManager}: cgroups are keys (cgroupfs form) with their last settings;
 * records mutating calls; `failNext(method, err)` injects an error.
 */
export class FakeCgroupManager implements CgroupManager {
  readonly driver: CgroupDriver;
  readonly calls: FakeCgroupCall[] = [];
  /** cgroupfs path → the settings applied so far (merged). */
  readonly cgroups = new Map<string, ResourceConfig>();
  /** cgroupfs path → pids in it. */
  readonly procs = new Map<string, number[]>();
  readonly usage = new Map<string, CgroupStats>();
  #mode: CgroupMode;
  #errors = new Map<string, unknown[]>();

  constructor(options: { driver?: CgroupDriver; mode?: CgroupMode } = {}) {
    this.driver = options.driver ?? 'cgroupfs';
    this.#mode = options.mode ?? 'v1';
  }

  failNext(method: 'create' | 'update' | 'destroy' | 'exists', err: unknown): void {
    const list = this.#errors.get(method) ?? [];
    list.push(err);
    this.#errors.set(method, list);
  }

  #maybeFail(method: string): void {
    const err = this.#errors.get(method)?.shift();
    if (err !== undefined) throw err;
  }

  async mode(): Promise<CgroupMode> {
    return this.#mode;
  }

  name(name: CgroupName): string {
    return renderCgroupName(name, this.driver);
  }

  async create(name: CgroupName, resources: ResourceConfig = {}): Promise<void> {
    this.#maybeFail('create');
    const key = toCgroupfs(name);
    this.calls.push({ method: 'create', name: key, resources });
    for (let i = 1; i <= name.length; i++) {
      const parent = toCgroupfs(name.slice(0, i));
      if (!this.cgroups.has(parent)) this.cgroups.set(parent, {});
    }
    this.cgroups.set(key, { ...this.cgroups.get(key), ...resources });
  }

  async update(name: CgroupName, resources: ResourceConfig): Promise<void> {
    this.#maybeFail('update');
    const key = toCgroupfs(name);
    this.calls.push({ method: 'update', name: key, resources });
    this.cgroups.set(key, { ...this.cgroups.get(key), ...resources });
  }

  async exists(name: CgroupName): Promise<boolean> {
    this.#maybeFail('exists');
    return this.cgroups.has(toCgroupfs(name));
  }

  async destroy(name: CgroupName): Promise<void> {
    this.#maybeFail('destroy');
    const key = toCgroupfs(name);
    this.calls.push({ method: 'destroy', name: key });
    for (const k of [...this.cgroups.keys()]) if (k === key || k.startsWith(`${key}/`)) this.cgroups.delete(k);
    this.procs.delete(key);
  }

  async pids(name: CgroupName): Promise<number[]> {
    return this.procs.get(toCgroupfs(name)) ?? [];
  }

  async children(name: CgroupName): Promise<string[]> {
    const key = toCgroupfs(name);
    const prefix = key === '/' ? '/' : `${key}/`;
    const out = new Set<string>();
    for (const k of this.cgroups.keys()) {
      if (!k.startsWith(prefix)) continue;
      const first = k.slice(prefix.length).split('/')[0];
      if (first !== undefined && first !== '') out.add(first);
    }
    return [...out];
  }

  async stats(name: CgroupName): Promise<CgroupStats> {
    return this.usage.get(toCgroupfs(name)) ?? { cpuUsageNanoseconds: 0, memoryUsageBytes: 0, memoryWorkingSetBytes: 0 };
  }

  async path(name: CgroupName, controller: string): Promise<string | undefined> {
    return `/sys/fs/cgroup/${controller}${toCgroupfs(name)}`;
  }
}

export type FakePodCgroupsCall =
  | { method: 'ensureExists'; uid: string }
  | { method: 'destroy'; uid: string }
  | { method: 'update'; uids: string[] }
  | { method: 'listPodUIDs' };

/**
 * A recording {@link PodCgroups} (the pod-lifecycle hook): pod cgroups are a set of UIDs;
 * `failEnsure` / `failDestroy` inject errors.
 */
export class FakePodCgroups implements PodCgroups {
  readonly calls: FakePodCgroupsCall[] = [];
  readonly existing = new Set<string>();
  failEnsure: unknown;
  failDestroy: unknown;

  async ensureExists(pod: Pod): Promise<void> {
    this.calls.push({ method: 'ensureExists', uid: pod.metadata.uid });
    if (this.failEnsure !== undefined) throw this.failEnsure;
    this.existing.add(pod.metadata.uid);
  }

  async destroy(uid: string): Promise<void> {
    this.calls.push({ method: 'destroy', uid });
    if (this.failDestroy !== undefined) throw this.failDestroy;
    this.existing.delete(uid);
  }

  async update(pods: Pod[]): Promise<void> {
    this.calls.push({ method: 'update', uids: pods.map((p) => p.metadata.uid) });
  }

  async listPodUIDs(): Promise<string[]> {
    this.calls.push({ method: 'listPodUIDs' });
    return [...this.existing];
  }

  callsOf<M extends FakePodCgroupsCall['method']>(method: M): Array<Extract<FakePodCgroupsCall, { method: M }>> {
    return this.calls.filter((c): c is Extract<FakePodCgroupsCall, { method: M }> => c.method === method);
  }
}
