import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '@kubelet-ts/common';
import { VolumeError } from '../errors.js';
import { PLUGIN_NAMES, podDir, podVolumesDir, unescapePluginName } from '../paths.js';
import type { VolumeContext, VolumeState } from './context.js';
import { removeVolumeDir, unmountAllUnder } from './plugins.js';
import { reconstruct } from './reconstruct.js';

/** Unmounts and removes the pod's subPath bind mounts; resolves with the error message, if any. */
async function cleanSubPaths(ctx: VolumeContext, uid: string): Promise<string | undefined> {
  const subpaths = join(podDir(ctx.rootDir, uid), 'volume-subpaths');
  try {
    await unmountAllUnder(ctx.mounter, subpaths);
    await removeVolumeDir(ctx.mounter, subpaths);
    return undefined;
  } catch (err) {
    return `cleaning subpaths of pod ${uid}: ${errorMessage(err)}`;
  }
}

/** Tears down every volume of the pod on disk (whatever the pod spec says now: after a restart only the disk knows); resolves with the errors. */
async function tearDownVolumes(ctx: VolumeContext, state: VolumeState, uid: string): Promise<string[]> {
  const errors: string[] = [];
  const volumesDir = podVolumesDir(ctx.rootDir, uid);
  for (const pluginDir of await readdir(volumesDir).catch(() => [] as string[])) {
    const pluginName = unescapePluginName(pluginDir);
    for (const name of await readdir(join(volumesDir, pluginDir)).catch(() => [] as string[])) {
      const dir = join(volumesDir, pluginDir, name);
      try {
        if (pluginName === PLUGIN_NAMES.csi) await ctx.plugins.csi.tearDown(dir);
        else {
          await unmountAllUnder(ctx.mounter, dir);
          await removeVolumeDir(ctx.mounter, dir);
        }
        state.actual.pods.get(uid)?.delete(name);
        state.lastFailure.delete(`${uid}/${name}`);
        ctx.backoff.reset(`${uid}/${name}`);
      } catch (err) {
        errors.push(
          `UnmountVolume.TearDown failed for volume ${JSON.stringify(name)} (UniqueName: ${JSON.stringify(`${pluginName}/${uid}-${name}`)}) pod ${JSON.stringify(uid)} : ${errorMessage(err)}`,
        );
      }
    }
    await rm(join(volumesDir, pluginDir), { recursive: false, force: true }).catch(() => undefined);
  }
  return errors;
}

/**
 * The reconciler's unmount pass for one pod, done at once (upstream unmountVolumes and
 * cleanupOrphanedPodDirs): the pod leaves the desired state, then its subPaths and volumes go. A
 * failure leaves the pod to the reconciler's retries (MOUNT_FAILED).
 */
export async function teardownPod(ctx: VolumeContext, state: VolumeState, uid: string): Promise<void> {
  await reconstruct(ctx, state);
  state.desired.delete(uid);
  await state.withPodLock(uid, async () => {
    const errors: string[] = [];
    const subPathError = await cleanSubPaths(ctx, uid);
    if (subPathError !== undefined) errors.push(subPathError);
    errors.push(...(await tearDownVolumes(ctx, state, uid)));
    if (errors.length > 0) {
      ctx.backoff.next(`teardown/${uid}`);
      state.teardownRetry.set(uid, ctx.clock.now());
      throw new VolumeError('MOUNT_FAILED', errors.join('; '));
    }
    state.teardownRetry.delete(uid);
    ctx.backoff.reset(`teardown/${uid}`);
    await rm(podVolumesDir(ctx.rootDir, uid), { recursive: true, force: true }).catch(() => undefined);
    state.actual.pods.delete(uid);
    state.actual.reconstructedUIDs.delete(uid);
  });
}
