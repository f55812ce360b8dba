import type { NodeResources, Pod, Quantity } from '@kubelet-ts/api';
import { getPodQOSClass } from '@kubelet-ts/api';
import type { Clock, Gauge, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, noopMetrics, systemClock } from '@kubelet-ts/common';
import type { CgroupManager, CgroupManagerOptions } from './cgroup-manager.js';
import { createCgroupManager } from './cgroup-manager.js';
import type { CgroupDriver, CgroupName } from './cgroup-name.js';
import { cgroupName, parseCgroupfsName, parseSystemdName } from './cgroup-name.js';
import { CgroupError } from './errors.js';
import type { NodeAllocatable } from './node-allocatable.js';
import { computeNodeAllocatable, readMachineCapacity } from './node-allocatable.js';
import type { PodContainerManager, QOSContainersInfo } from './pod-container-manager.js';
import { createPodContainerManager } from './pod-container-manager.js';
import type { ResourceConfig } from './resources.js';
import { MIN_SHARES, milliCPUToShares, podResourceAmounts } from './resources.js';

/** Upstream defaultNodeAllocatableCgroupName and the QoS tier names. */
export const KUBEPODS_CGROUP = 'kubepods';
export const BURSTABLE_CGROUP = 'burstable';
export const BESTEFFORT_CGROUP = 'besteffort';

/** What pod-lifecycle calls around a pod's life (structurally its `podCgroups` hook). */
export interface PodCgroups {
  /** Before the runtime syncs the pod: the pod cgroup exists with the pod's resources. */
  ensureExists(pod: Pod): Promise<void>;
  /** After the pod terminated and its containers are gone: kill leftovers, remove the cgroup. */
  destroy(uid: string): Promise<void>;
  /** The active pods changed: recompute the QoS tiers' shares. */
  update(pods: Pod[]): Promise<void>;
  /** UIDs of the pod cgroups on disk (housekeeping removes those of pods that are gone). */
  listPodUIDs(): Promise<string[]>;
}

export interface ContainerManagerOptions {
  /** `cgroupRoot` (`--cgroup-root`); default `/`. Created (with parents) when missing. */
  cgroupRoot?: string;
  /** `cgroupsPerQOS`; default true. False: pods get no cgroup of their own (the runtime's default). */
  cgroupsPerQOS?: boolean;
  cgroupDriver?: CgroupDriver;
  kubeReserved?: Record<string, Quantity>;
  systemReserved?: Record<string, Quantity>;
  evictionHard?: Record<string, string>;
  /** `enforceNodeAllocatable`; with `pods` the node allocatable is enforced on kubepods. Default `['pods']`. */
  enforceNodeAllocatable?: string[];
  /** `podPidsLimit`; -1 (default) = none. */
  podPidsLimit?: number;
  /** `cpuCFSQuota`; default true. */
  cpuCfsQuota?: boolean;
  /** `cpuCFSQuotaPeriod` in ms; default 100. */
  cpuCfsQuotaPeriodMs?: number;
  /** How often the QoS tiers are updated besides pod changes (upstream 1 min). */
  qosUpdateIntervalMs?: number;
  /** Machine capacity (default: read from `<fsRoot>/proc` and `/sys`). */
  machineCapacity?: () => Promise<NodeResources>;
  /**
   * With the default machine capacity: the path whose filesystem is the node's ephemeral storage
   * (upstream: the kubelet's root dir, with localStorageCapacityIsolation). Unset: none is reported.
   */
  ephemeralStoragePath?: string;
  /** An existing cgroup manager (tests: a fake); otherwise one is made from the options below. */
  cgroupManager?: CgroupManager;
  fsRoot?: string;
  fs?: CgroupManagerOptions['fs'];
  mountinfo?: string;
  systemd?: CgroupManagerOptions['systemd'];
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  clock?: Clock;
  logger?: Logger;
  /**
   * kubelet_cgroup_version (1 or 2, set at start as upstream's cgroupVersionCheck), and for the cgroup
   * manager made here kubelet_cgroup_manager_duration_seconds. Default: none.
   */
  metrics?: CgroupManagerOptions['metrics'];
}

/**
 * The kubelet's container manager as far as cgroups go (upstream cm.ContainerManager): the
 * QoS hierarchy under cgroupRoot, node allocatable on kubepods, pod cgroups, and their stats.
 */
export interface ContainerManager {
  readonly cgroupManager: CgroupManager;
  readonly podContainerManager: PodContainerManager;
  readonly qos: QOSContainersInfo;
  /** The root cgroup of the pods: `<cgroupRoot>/kubepods` (or cgroupRoot without cgroupsPerQOS). */
  readonly podsRoot: CgroupName;
  /**
   * Creates cgroupRoot, kubepods with node allocatable, and the Burstable and BestEffort tiers.
   * @throws CgroupError `CGROUP_ROOT` (kept in {@link startError}); pod syncs then fail with it and `start` is retried on the next one.
   */
  start(): Promise<void>;
  startError(): CgroupError | undefined;
  /** Re-applies the QoS tiers every `qosUpdateIntervalMs` until the signal aborts. */
  run(signal: AbortSignal): Promise<void>;
  /** Upstream UpdateQOSCgroups: Burstable gets the summed cpu requests of its pods as shares, BestEffort 2. */
  updateQOSCgroups(pods?: Pod[]): Promise<void>;
  /** Node allocatable (known after a successful start). */
  getNodeAllocatable(): NodeAllocatable | undefined;
  /** The pod cgroup in the driver's form: the runtime's `cgroup_parent`; undefined without cgroupsPerQOS. */
  getPodCgroupParent(pod: Pod): string | undefined;
  /** The hook pod-lifecycle drives. */
  readonly podCgroups: PodCgroups;
}

function parseRoot(root: string | undefined, driver: CgroupDriver): CgroupName {
  const value = root === undefined || root === '' ? '/' : root;
  if (driver === 'systemd' && value.endsWith('.slice')) return parseSystemdName(value);
  return parseCgroupfsName(value);
}

class ContainerManagerImpl implements ContainerManager {
  readonly cgroupManager: CgroupManager;
  readonly podContainerManager: PodContainerManager;
  readonly qos: QOSContainersInfo;
  readonly podsRoot: CgroupName;
  readonly podCgroups: PodCgroups;
  readonly #options: ContainerManagerOptions;
  readonly #root: CgroupName;
  readonly #perQOS: boolean;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #cgroupVersion: Gauge;
  /** Pods whose cgroup we ensured, by UID: what the QoS tiers are computed from. */
  readonly #active = new Map<string, Pod>();
  #allocatable: NodeAllocatable | undefined;
  #startError: CgroupError | undefined;
  #started = false;
  #starting: Promise<void> | undefined;
  /** The last QoS update issued, and the one not yet running that later calls can share. */
  #qosUpdates: Promise<void> = Promise.resolve();
  #queuedQOSUpdate: Promise<void> | undefined;

  constructor(options: ContainerManagerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
    this.#cgroupVersion = (options.metrics ?? noopMetrics).gauge({ name: 'kubelet_cgroup_version', help: 'cgroup version on the hosts.' });
    const driver = options.cgroupDriver ?? 'cgroupfs';
    this.cgroupManager =
      options.cgroupManager ??
      createCgroupManager({
        driver,
        clock: this.#clock,
        logger: this.#logger,
        ...(options.fsRoot !== undefined ? { fsRoot: options.fsRoot } : {}),
        ...(options.fs !== undefined ? { fs: options.fs } : {}),
        ...(options.mountinfo !== undefined ? { mountinfo: options.mountinfo } : {}),
        ...(options.systemd !== undefined ? { systemd: options.systemd } : {}),
        ...(options.metrics !== undefined ? { metrics: options.metrics } : {}),
      });
    this.#root = parseRoot(options.cgroupRoot, this.cgroupManager.driver);
    this.#perQOS = options.cgroupsPerQOS ?? true;
    this.podsRoot = this.#perQOS ? cgroupName(this.#root, KUBEPODS_CGROUP) : this.#root;
    this.qos = {
      guaranteed: this.podsRoot,
      burstable: this.#perQOS ? cgroupName(this.podsRoot, BURSTABLE_CGROUP) : this.podsRoot,
      bestEffort: this.#perQOS ? cgroupName(this.podsRoot, BESTEFFORT_CGROUP) : this.podsRoot,
    };
    this.podContainerManager = createPodContainerManager({
      cgroupManager: this.cgroupManager,
      qos: this.qos,
      enforceCpuLimits: options.cpuCfsQuota ?? true,
      cpuPeriodUs: (options.cpuCfsQuotaPeriodMs ?? 100) * 1000,
      podPidsLimit: options.podPidsLimit ?? -1,
      clock: this.#clock,
      logger: this.#logger,
      ...(options.kill !== undefined ? { kill: options.kill } : {}),
    });
    this.podCgroups = {
      ensureExists: (pod) => this.#ensurePod(pod),
      destroy: (uid) => this.#destroyPod(uid),
      update: (pods) => this.#update(pods),
      listPodUIDs: async () => (this.#perQOS && this.#started ? [...(await this.podContainerManager.getAllPodsFromCgroups()).keys()] : []),
    };
  }

  startError(): CgroupError | undefined {
    return this.#startError;
  }

  getNodeAllocatable(): NodeAllocatable | undefined {
    return this.#allocatable;
  }

  start(): Promise<void> {
    if (this.#started) return Promise.resolve();
    this.#starting ??= this.#doStart().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #doStart(): Promise<void> {
    const rootText = this.cgroupManager.name(this.#root);
    try {
      this.#cgroupVersion.set((await this.cgroupManager.mode()) === 'v2' ? 2 : 1);
      const readDefault = (): Promise<NodeResources> =>
        readMachineCapacity(
          this.#options.fsRoot,
          this.#options.ephemeralStoragePath !== undefined ? { ephemeralStoragePath: this.#options.ephemeralStoragePath } : {},
        );
      const capacity = await (this.#options.machineCapacity ?? readDefault)();
      const allocatable = computeNodeAllocatable({
        capacity,
        ...(this.#options.kubeReserved !== undefined ? { kubeReserved: this.#options.kubeReserved } : {}),
        ...(this.#options.systemReserved !== undefined ? { systemReserved: this.#options.systemReserved } : {}),
        ...(this.#options.evictionHard !== undefined ? { evictionHard: this.#options.evictionHard } : {}),
      });
      this.#allocatable = allocatable;
      if (this.#root.length > 0 && !(await this.cgroupManager.exists(this.#root))) await this.cgroupManager.create(this.#root);
      if (this.#perQOS) {
        // Upstream enforceNodeAllocatableCgroups: kubepods gets node allocatable when `pods` is enforced, capacity otherwise.
        const enforce = (this.#options.enforceNodeAllocatable ?? ['pods']).includes('pods');
        const limits = enforce ? allocatable.enforced : capacity;
        const kubepods: ResourceConfig = { cpuShares: milliCPUToShares(limits.cpuMilli), memoryLimitBytes: limits.memoryBytes };
        if (enforce && limits.pids !== undefined) kubepods.pidsLimit = limits.pids;
        await this.cgroupManager.create(this.podsRoot, kubepods);
        await this.cgroupManager.create(this.qos.burstable, { cpuShares: MIN_SHARES });
        await this.cgroupManager.create(this.qos.bestEffort, { cpuShares: MIN_SHARES });
        this.#logger.info('Created the QoS cgroup hierarchy', {
          cgroupRoot: rootText,
          kubepods: this.cgroupManager.name(this.podsRoot),
          enforceNodeAllocatable: enforce,
          cpuShares: kubepods.cpuShares,
          memoryLimitBytes: kubepods.memoryLimitBytes,
        });
      }
      this.#started = true;
      this.#startError = undefined;
      await this.updateQOSCgroups();
    } catch (err) {
      const error =
        err instanceof CgroupError && (err.code === 'INVALID_CONFIG' || err.code === 'SYSTEMD_UNAVAILABLE' || err.code === 'NOT_MOUNTED')
          ? err
          : new CgroupError('CGROUP_ROOT', `cannot create the pod cgroup hierarchy under cgroupRoot ${JSON.stringify(rootText)}`, {
              cause: err,
            });
      this.#startError = error;
      throw error;
    }
  }

  async run(signal: AbortSignal): Promise<void> {
    const interval = this.#options.qosUpdateIntervalMs ?? 60_000;
    const timer = this.#clock.setInterval(() => {
      const work = this.#started ? this.updateQOSCgroups() : this.start();
      work.catch((err: unknown) => this.#logger.error('Failed to update QoS cgroups', { err: errorMessage(err) }));
    }, interval);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    this.#clock.clearInterval(timer);
  }

  updateQOSCgroups(pods?: Pod[]): Promise<void> {
    if (!this.#perQOS || !this.#started) return Promise.resolve();
    // One update at a time, so an older pod list never lands after a newer one; calls while one is
    // queued share it, and it reads the active pods when it runs.
    if (pods === undefined && this.#queuedQOSUpdate !== undefined) return this.#queuedQOSUpdate;
    const run: Promise<void> = this.#qosUpdates
      .catch(() => undefined)
      .then(() => {
        if (this.#queuedQOSUpdate === run) this.#queuedQOSUpdate = undefined;
        return this.#applyQOS(pods ?? [...this.#active.values()]);
      });
    this.#qosUpdates = run;
    if (pods === undefined) this.#queuedQOSUpdate = run;
    return run;
  }

  async #applyQOS(list: Pod[]): Promise<void> {
    let burstableMilli = 0;
    for (const pod of list) {
      if (getPodQOSClass(pod) !== 'Burstable') continue;
      try {
        burstableMilli += podResourceAmounts(pod, 'requests').cpuMilli;
      } catch (err) {
        this.#logger.warn('Pod resources ignored for the QoS cgroups', { podUID: pod.metadata.uid, err: errorMessage(err) });
      }
    }
    await this.cgroupManager.update(this.qos.bestEffort, { cpuShares: MIN_SHARES });
    await this.cgroupManager.update(this.qos.burstable, { cpuShares: milliCPUToShares(burstableMilli) });
  }

  getPodCgroupParent(pod: Pod): string | undefined {
    if (!this.#perQOS) return undefined;
    return this.podContainerManager.getPodContainerName(pod).literal;
  }

  async #ensurePod(pod: Pod): Promise<void> {
    if (!this.#perQOS) return;
    if (!this.#started) {
      try {
        await this.start();
      } catch (err) {
        throw new CgroupError('CGROUP_ROOT', 'pod cgroup not created', { cause: err });
      }
    }
    const isNew = !this.#active.has(pod.metadata.uid);
    this.#active.set(pod.metadata.uid, pod);
    try {
      // Upstream SyncPod: the QoS tiers are updated before a new pod cgroup is made, so Burstable already counts it.
      if (isNew) await this.updateQOSCgroups();
      await this.podContainerManager.ensureExists(pod);
    } catch (err) {
      if (isNew) this.#active.delete(pod.metadata.uid);
      throw err;
    }
  }

  async #destroyPod(uid: string): Promise<void> {
    if (!this.#perQOS) return;
    this.#active.delete(uid);
    const found = await this.podContainerManager.getAllPodsFromCgroups();
    const name = found.get(uid);
    if (name !== undefined) {
      await this.podContainerManager.destroy(name);
      this.#logger.info('Removed pod cgroup', { podUID: uid, cgroup: this.cgroupManager.name(name) });
    }
    if (this.#started) await this.updateQOSCgroups();
  }

  async #update(pods: Pod[]): Promise<void> {
    if (!this.#perQOS || !this.#started) return;
    const wanted = new Set(pods.map((p) => p.metadata.uid));
    for (const uid of [...this.#active.keys()]) if (!wanted.has(uid)) this.#active.delete(uid);
    for (const pod of pods) if (this.#active.has(pod.metadata.uid)) this.#active.set(pod.metadata.uid, pod);
    await this.updateQOSCgroups();
  }
}

export function createContainerManager(options: ContainerManagerOptions = {}): ContainerManager {
  return new ContainerManagerImpl(options);
}
