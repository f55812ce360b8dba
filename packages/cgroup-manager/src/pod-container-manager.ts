import type { Pod } from '@kubelet-ts/api';
import { getPodQOSClass } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger, systemClock } from '@kubelet-ts/common';
import type { CgroupManager, CgroupStats } from './cgroup-manager.js';
import type { CgroupName } from './cgroup-name.js';
import { cgroupName } from './cgroup-name.js';
import type { PodResourceConfigOptions } from './resources.js';
import { resourceConfigForPod } from './resources.js';

/** Upstream podCgroupNamePrefix. */
export const POD_CGROUP_PREFIX = 'pod';

/** The QoS tiers' cgroups (upstream QOSContainersInfo). Guaranteed pods sit directly in `guaranteed` = kubepods. */
export interface QOSContainersInfo {
  guaranteed: CgroupName;
  burstable: CgroupName;
  bestEffort: CgroupName;
}

/** Pod-level cgroups (upstream cm.PodContainerManager). */
export interface PodContainerManager {
  /** The pod's cgroup name and its literal form for the driver (the runtime's cgroup_parent). */
  getPodContainerName(pod: Pod): { name: CgroupName; literal: string };
  exists(pod: Pod): Promise<boolean>;
  /** Creates the pod cgroup with the pod's resources (or updates them when it exists). */
  ensureExists(pod: Pod): Promise<void>;
  /** Kills what is left in the cgroup (SIGKILL, as upstream) and removes it. */
  destroy(name: CgroupName): Promise<void>;
  /** Pod cgroups found on disk, by pod UID. */
  getAllPodsFromCgroups(): Promise<Map<string, CgroupName>>;
  podStats(pod: Pod): Promise<CgroupStats>;
  /** A container's cgroup stats (cgroupfs: `<pod cgroup>/<containerId>`). */
  containerStats(pod: Pod, containerId: string): Promise<CgroupStats>;
}

export interface PodContainerManagerOptions extends PodResourceConfigOptions {
  cgroupManager: CgroupManager;
  qos: QOSContainersInfo;
  /** Kills a process (default process.kill); tests inject a recorder. */
  kill?: (pid: number, signal: NodeJS.Signals) => void;
  clock?: Clock;
  logger?: Logger;
}

/** Upstream tryKillingCgroupProcesses: up to 5 rounds of SIGKILL, 1 s apart. */
const KILL_ROUNDS = 5;
const KILL_INTERVAL_MS = 1_000;
/**
 * A pod cgroup seen with its current settings is not looked for again on disk within this time. Upstream
 * checks on every pod sync, but a pod with no events syncs only every syncFrequency (1 min), so repairing an
 * externally removed cgroup within 10 s stays inside upstream's bound while a burst of syncs (a pod start
 * makes several) costs no stat calls in every hierarchy.
 */
export const POD_CGROUP_RECHECK_MS = 10_000;

class PodContainerManagerImpl implements PodContainerManager {
  readonly #cgroups: CgroupManager;
  readonly #qos: QOSContainersInfo;
  readonly #resourceOptions: PodResourceConfigOptions;
  readonly #kill: (pid: number, signal: NodeJS.Signals) => void;
  readonly #clock: Clock;
  readonly #logger: Logger;
  /** Pod cgroup (literal name) → the resources last written to it, as JSON, and when it was last seen on disk. */
  readonly #applied = new Map<string, { resources: string; seenAt: number }>();

  constructor(options: PodContainerManagerOptions) {
    this.#cgroups = options.cgroupManager;
    this.#qos = options.qos;
    this.#resourceOptions = {
      ...(options.enforceCpuLimits !== undefined ? { enforceCpuLimits: options.enforceCpuLimits } : {}),
      ...(options.cpuPeriodUs !== undefined ? { cpuPeriodUs: options.cpuPeriodUs } : {}),
      ...(options.podPidsLimit !== undefined ? { podPidsLimit: options.podPidsLimit } : {}),
    };
    this.#kill = options.kill ?? ((pid, signal) => process.kill(pid, signal));
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? noopLogger;
  }

  getPodContainerName(pod: Pod): { name: CgroupName; literal: string } {
    const qos = getPodQOSClass(pod);
    const parent = qos === 'Guaranteed' ? this.#qos.guaranteed : qos === 'Burstable' ? this.#qos.burstable : this.#qos.bestEffort;
    const name = cgroupName(parent, `${POD_CGROUP_PREFIX}${pod.metadata.uid}`);
    return { name, literal: this.#cgroups.name(name) };
  }

  exists(pod: Pod): Promise<boolean> {
    return this.#cgroups.exists(this.getPodContainerName(pod).name);
  }

  async ensureExists(pod: Pod): Promise<void> {
    const { name, literal } = this.getPodContainerName(pod);
    const resources = resourceConfigForPod(pod, this.#resourceOptions);
    const wanted = JSON.stringify(resources);
    const applied = this.#applied.get(literal);
    const now = this.#clock.now();
    if (applied?.resources === wanted && now - applied.seenAt < POD_CGROUP_RECHECK_MS) return;
    if (await this.#cgroups.exists(name)) {
      // Upstream only creates here; keeping the settings current lets resource changes of a static pod (same UID)
      // apply. Unchanged settings are not written again (every pod is synced every minute).
      if (applied?.resources !== wanted) await this.#cgroups.update(name, resources);
      this.#applied.set(literal, { resources: wanted, seenAt: now });
      return;
    }
    await this.#cgroups.create(name, resources);
    this.#applied.set(literal, { resources: wanted, seenAt: now });
    this.#logger.debug('Created pod cgroup', {
      pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
      podUID: pod.metadata.uid,
      cgroup: this.#cgroups.name(name),
    });
  }

  async destroy(name: CgroupName): Promise<void> {
    this.#applied.delete(this.#cgroups.name(name));
    for (let round = 0; round < KILL_ROUNDS; round++) {
      if (round > 0) await this.#clock.sleep(KILL_INTERVAL_MS);
      const pids = await this.#cgroups.pids(name);
      if (pids.length === 0) break;
      this.#logger.info('Killing processes left in the pod cgroup', { cgroup: this.#cgroups.name(name), pids });
      for (const pid of pids) {
        try {
          this.#kill(pid, 'SIGKILL');
        } catch (err) {
          this.#logger.debug('Failed to kill process', { pid, err: errorMessage(err) });
        }
      }
    }
    await this.#cgroups.destroy(name);
  }

  async getAllPodsFromCgroups(): Promise<Map<string, CgroupName>> {
    const out = new Map<string, CgroupName>();
    for (const parent of [this.#qos.guaranteed, this.#qos.burstable, this.#qos.bestEffort]) {
      for (const child of await this.#cgroups.children(parent)) {
        const base =
          this.#cgroups.driver === 'systemd'
            ? (child
                .replace(/\.slice$/, '')
                .split('-')
                .at(-1) ?? child)
            : child;
        if (!base.startsWith(POD_CGROUP_PREFIX)) continue;
        const uid = base.slice(POD_CGROUP_PREFIX.length);
        const normalized = this.#cgroups.driver === 'systemd' ? uid.replaceAll('_', '-') : uid;
        out.set(normalized, cgroupName(parent, `${POD_CGROUP_PREFIX}${normalized}`));
      }
    }
    return out;
  }

  podStats(pod: Pod): Promise<CgroupStats> {
    return this.#cgroups.stats(this.getPodContainerName(pod).name);
  }

  containerStats(pod: Pod, containerId: string): Promise<CgroupStats> {
    return this.#cgroups.stats(cgroupName(this.getPodContainerName(pod).name, containerId));
  }
}

export function createPodContainerManager(options: PodContainerManagerOptions): PodContainerManager {
  return new PodContainerManagerImpl(options);
}
