import os from 'node:os';
import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import type { NodeAllocatable, VolumeManager } from '@kubelet-ts/volume-manager';
import { createSystemMounter, createVolumeManager } from '@kubelet-ts/volume-manager';

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
  clock: Clock;
  logger: Logger;
}

/**
 * The kubelet's volume manager in standalone mode: real mounts under `<root-dir>/pods`. No
 * ConfigMap/Secret source (static pods may not reference API objects, as upstream) and no CSI
 * drivers are configured yet, so configMap/secret/CSI volumes fail with the library's reason.
 * Reconstructed volumes of pods no source has are torn down by the lifecycle's housekeeping
 * (teardownPod, then the pod dir) once every source was seen and the runtime no longer runs the pod.
 */
export function createKubeletVolumeManager(options: KubeletVolumesOptions): VolumeManager {
  return createVolumeManager({
    rootDir: options.rootDir,
    mounter: createSystemMounter(),
    nodeAllocatable: volumeNodeAllocatable(options.allocatable),
    clock: options.clock,
    logger: options.logger,
  });
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
