import type { NodeResources, ObjectSource } from '@kubelet-ts/api';
import type { Clock, Logger } from '@kubelet-ts/common';
import type { StaticPodObjectReference } from '@kubelet-ts/pod-sources';
import type { CsiDriverRegistry, TokenSource, VolumeManager } from '@kubelet-ts/volume-manager';
import { createDirectoryObjectSource, createSystemMounter, createVolumeManager } from '@kubelet-ts/volume-manager';

export interface KubeletVolumesOptions {
  rootDir: string;
  /** Node allocatable (resourceFieldRef limits a container does not set, memory-backed volume sizes), read at each use. */
  getNodeAllocatable: () => NodeResources;
  /** Where configMap/secret volumes and CSI secrets come from (`staticObjectSource`, or the cluster in API mode). */
  objects?: ObjectSource | undefined;
  /** Bound service account tokens for projected volumes (API mode). */
  tokens?: TokenSource | undefined;
  /** syncFrequency: configMap/secret/downwardAPI/projected contents are re-synced at least this often. */
  syncFrequencyMs?: number;
  /** The CSI drivers registered through `<root-dir>/plugins_registry` (the plugin manager's CSIPlugin handler). */
  csiDrivers: CsiDriverRegistry;
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
 * kubelet-ts --static-object-dir: ConfigMap/Secret manifests for static pods (invalid files are logged
 * with file, field and reason and skipped); undefined without the flag.
 */
export function staticObjectSource(dir: string | undefined, logger: Logger): ObjectSource | undefined {
  if (dir === undefined || dir === '') return undefined;
  logger.info('ConfigMaps and Secrets for static pods come from the static object directory', { dir });
  return createDirectoryObjectSource({
    dir,
    onInvalid: (err) => logger.error('Invalid object manifest in the static object directory; skipped', { err: err.message }),
  });
}

/**
 * The kubelet's volume manager: real mounts under `<root-dir>/pods`.
 * - configMap/secret volumes (and CSI nodePublishSecretRefs) read `objects`: the cluster's in API
 *   mode, `--static-object-dir` for static pods; without a source they fail with the library's
 *   "not found" reason. Contents are re-synced
 *   atomically on every pod sync and by the reconciler every `syncFrequency`, as upstream.
 * - CSI drivers are looked up in `csiDrivers`, which the plugin manager fills from `<root-dir>/plugins_registry`.
 * Reconstructed volumes of pods no source has are torn down by the lifecycle's housekeeping
 * (teardownPod, then the pod dir) once every source was seen and the runtime no longer runs the pod.
 */
export function createKubeletVolumeManager(options: KubeletVolumesOptions): VolumeManager {
  const { logger } = options;
  return createVolumeManager({
    rootDir: options.rootDir,
    mounter: createSystemMounter(),
    ...(options.objects !== undefined ? { sources: options.objects } : {}),
    ...(options.tokens !== undefined ? { tokenSource: options.tokens } : {}),
    csiDrivers: options.csiDrivers,
    getNodeAllocatable: options.getNodeAllocatable,
    ...(options.syncFrequencyMs !== undefined ? { resyncPeriodMs: options.syncFrequencyMs } : {}),
    clock: options.clock,
    logger,
  });
}
