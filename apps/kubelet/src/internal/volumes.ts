import os from 'node:os';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { StaticPodObjectReference } from '@kubelet-ts/pod-sources';
import type { NodeAllocatable, PluginWatcher, VolumeManager } from '@kubelet-ts/volume-manager';
import {
  createCsiPluginRegistry,
  createDirectoryObjectSource,
  createPluginWatcher,
  createSystemMounter,
  createVolumeManager,
  PLUGIN_TYPE,
  pluginsRegistryDir,
} from '@kubelet-ts/volume-manager';

/** CPU and memory the node gives pods (the cgroup manager's `allocatable`), structurally. */
export interface PodAllocatable {
  cpuMilli: number;
  memoryBytes: number;
}

/**
 * What the volume manager falls back to for resourceFieldRefs and tmpfs sizes (upstream:
 * node allocatable): the cgroup manager's allocatable once it computed it, else the machine's capacity.
 */
export function volumeNodeAllocatable(allocatable: PodAllocatable | undefined, cpus = os.cpus().length, memoryBytes = os.totalmem()): NodeAllocatable {
  if (allocatable !== undefined && allocatable.memoryBytes > 0) {
    return { cpuMillis: allocatable.cpuMilli, memoryBytes: allocatable.memoryBytes, ephemeralStorageBytes: 0 };
  }
  return { cpuMillis: cpus * 1000, memoryBytes, ephemeralStorageBytes: 0 };
}

export interface KubeletVolumesOptions {
  rootDir: string;
  allocatable: PodAllocatable | undefined;
  /** kubelet-ts --static-object-dir: ConfigMap/Secret manifests for configMap/secret volumes (standalone mode). */
  staticObjectDir?: string | undefined;
  /** syncFrequency: configMap/secret/downwardAPI/projected contents are re-synced at least this often. */
  syncFrequencyMs?: number;
  clock: Clock;
  logger: Logger;
}

/**
 * The API object references static pods may make in this kubelet (handed to the pod sources):
 * inline CSI volumes always (drivers register through `<root-dir>/plugins_registry`), configMap and
 * secret volumes only with an object source (`--static-object-dir`). Everything else keeps
 * upstream's PreventStaticPodAPIReferences refusal.
 */
export function staticPodObjectReferences(staticObjectDir: string | undefined): StaticPodObjectReference[] {
  return staticObjectDir !== undefined && staticObjectDir !== '' ? ['configMapVolumes', 'secretVolumes', 'csiVolumes'] : ['csiVolumes'];
}

/**
 * The kubelet's volume manager in standalone mode: real mounts under `<root-dir>/pods`.
 * - configMap/secret volumes (and CSI nodePublishSecretRefs) read the manifests of
 *   `--static-object-dir` when set (invalid files are logged with file, field and reason and
 *   skipped); without it they fail with the library's "not found" reason. Contents are re-synced
 *   atomically on every pod sync and by the reconciler every `syncFrequency`, as upstream.
 * - CSI drivers are found through plugin registration: the returned manager's `run` also runs the
 *   plugin watcher on `<root-dir>/plugins_registry`.
 * Reconstructed volumes of pods no source has are torn down by the lifecycle's housekeeping
 * (teardownPod, then the pod dir) once every source was seen and the runtime no longer runs the pod.
 */
export function createKubeletVolumeManager(options: KubeletVolumesOptions): VolumeManager {
  const { logger } = options;
  const dir = options.staticObjectDir;
  const sources =
    dir !== undefined && dir !== ''
      ? createDirectoryObjectSource({ dir, onInvalid: (err) => logger.error('Invalid object manifest in the static object directory; skipped', { err: err.message }) })
      : undefined;
  if (sources !== undefined) logger.info('ConfigMaps and Secrets for static pods come from the static object directory', { dir });
  const csiDrivers = createCsiPluginRegistry({ logger });
  const pluginWatcher = createPluginWatcher({
    dir: pluginsRegistryDir(options.rootDir),
    handlers: { [PLUGIN_TYPE.CSIPlugin]: csiDrivers },
    clock: options.clock,
    logger,
  });
  const volumes = createVolumeManager({
    rootDir: options.rootDir,
    mounter: createSystemMounter(),
    ...(sources !== undefined ? { sources } : {}),
    csiDrivers,
    nodeAllocatable: volumeNodeAllocatable(options.allocatable),
    ...(options.syncFrequencyMs !== undefined ? { resyncPeriodMs: options.syncFrequencyMs } : {}),
    clock: options.clock,
    logger,
  });
  return withPluginWatcher(volumes, pluginWatcher, logger);
}

/** The volume manager whose `run` also runs the plugin watcher (a watcher failure is logged, not fatal to volumes). */
export function withPluginWatcher(volumes: VolumeManager, watcher: Pick<PluginWatcher, 'run'>, logger: Logger): VolumeManager {
  // Delegates method by method (not a spread, which would drop a class instance's methods).
  return {
    waitForAttachAndMount: (pod, signal) => volumes.waitForAttachAndMount(pod, signal),
    getMountsForContainer: (pod, container) => volumes.getMountsForContainer(pod, container),
    teardownPod: (uid) => volumes.teardownPod(uid),
    getVolumeUsage: (uid) => volumes.getVolumeUsage(uid),
    getMountedVolumes: (uid) => volumes.getMountedVolumes(uid),
    getReconstructedPodUIDs: () => volumes.getReconstructedPodUIDs(),
    reconstruct: () => volumes.reconstruct(),
    run: async (signal) => {
      // The watcher stops with the reconciler, so that a failed reconciler is restarted with it.
      const stop = new AbortController();
      const onAbort = (): void => stop.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) stop.abort(signal.reason);
      const watching = watcher.run(stop.signal).catch((err: unknown) => logger.error('Plugin watcher stopped; CSI drivers will not register', { err: errorMessage(err) }));
      try {
        await volumes.run(signal);
      } finally {
        signal.removeEventListener('abort', onAbort);
        stop.abort();
        await watching;
      }
    },
  };
}

/**
 * Runs the volume reconciler until the signal aborts, never rejecting: a failure (mountinfo
 * unreadable while rebuilding the state from disk…) is logged and `run` is started again after `retryMs`.
 */
export async function runVolumeManager(volumes: Pick<VolumeManager, 'run'>, signal: AbortSignal, clock: Clock, logger: Logger, retryMs = 5_000): Promise<void> {
  while (!signal.aborted) {
    try {
      await volumes.run(signal);
      return;
    } catch (err) {
      logger.error('Volume manager failed; restarting it', { err: errorMessage(err), retryAfterMs: retryMs });
      await clock.sleep(retryMs, signal).catch(() => undefined);
    }
  }
}
