import { quantityValue } from '@kubelet-ts/api';
import { PLUGIN_NAMES } from '../paths.js';
import type { VolumeUsage } from '../types.js';
import type { VolumeContext, VolumeState } from './context.js';
import { diskUsage } from './disk-usage.js';

/** Disk usage of the desired pod's emptyDir volumes against their sizeLimit (what eviction's local-storage check reads). */
export async function getVolumeUsage(ctx: VolumeContext, state: VolumeState, uid: string): Promise<VolumeUsage[]> {
  const pod = state.desired.get(uid);
  const usage: VolumeUsage[] = [];
  if (pod === undefined) return usage;
  for (const volume of pod.spec.volumes ?? []) {
    if (volume.emptyDir === undefined) continue;
    const path = ctx.plugins.emptyDir.path(pod, volume);
    const usedBytes = await diskUsage(path);
    const limit = volume.emptyDir.sizeLimit !== undefined ? quantityValue(volume.emptyDir.sizeLimit) : undefined;
    usage.push({
      volumeName: volume.name,
      pluginName: PLUGIN_NAMES.emptyDir,
      path,
      usedBytes,
      ...(limit !== undefined ? { limitBytes: limit } : {}),
      exceeded: limit !== undefined && usedBytes > limit,
    });
  }
  return usage;
}
