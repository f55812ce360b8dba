import type { Pod } from '@kubelet-ts/api';
import { errorMessage } from '@kubelet-ts/common';
import type { VolumeContext, VolumeState } from './context.js';
import { podLog } from './context.js';
import type { VolumePlugin } from './plugins.js';

function setUpFailed(volumeName: string, err: unknown): string {
  return `MountVolume.SetUp failed for volume ${JSON.stringify(volumeName)} : ${errorMessage(err)}`;
}

/**
 * The reconciler's mount pass for one pod (upstream mountOrAttachVolumes + MountVolume): sets up the
 * volumes not set up yet, re-syncs content volumes that are due (all of them when `force`), and
 * leaves failed ones to their back-off. Resolves with the FailedMount messages of the volumes that
 * hold the pod back.
 */
export async function mountPodVolumes(ctx: VolumeContext, state: VolumeState, pod: Pod, force: boolean): Promise<Map<string, string>> {
  const { backoff, clock } = ctx;
  const uid = pod.metadata.uid;
  const failures = new Map<string, string>();
  const entries = state.actual.entriesOf(uid);
  for (const volume of pod.spec.volumes ?? []) {
    const key = `${uid}/${volume.name}`;
    const existing = entries.get(volume.name);
    let plugin: VolumePlugin;
    try {
      plugin = ctx.plugins.pluginFor(volume);
    } catch (err) {
      failures.set(volume.name, setUpFailed(volume.name, err));
      continue;
    }
    const due =
      existing === undefined ||
      existing.reconstructed ||
      (plugin.requiresRemount && (force || clock.now() - existing.lastSyncMs >= ctx.resyncPeriodMs));
    if (!due) continue;
    const failed = state.lastFailure.get(key);
    if (!force && failed !== undefined && backoff.isInBackoffSince(key, failed.atMs)) {
      if (existing === undefined || existing.reconstructed) failures.set(volume.name, failed.message);
      continue;
    }
    try {
      await plugin.setUp(pod, volume);
      entries.set(volume.name, {
        podUID: uid,
        volumeName: volume.name,
        pluginName: plugin.name,
        path: plugin.path(pod, volume),
        reconstructed: false,
        lastSyncMs: clock.now(),
      });
      backoff.reset(key);
      state.lastFailure.delete(key);
      if (existing === undefined) podLog(ctx, pod).debug('MountVolume.SetUp succeeded', { volume: volume.name, plugin: plugin.name });
    } catch (err) {
      const message = setUpFailed(volume.name, err);
      backoff.next(key);
      state.lastFailure.set(key, { atMs: clock.now(), message });
      podLog(ctx, pod).warn('MountVolume.SetUp failed', { volume: volume.name, err: errorMessage(err) });
      // A volume that was set up before keeps serving its last content and does not hold the
      // pod back (upstream: a failed remount is only an event).
      if (existing === undefined || existing.reconstructed) failures.set(volume.name, message);
    }
  }
  return failures;
}
