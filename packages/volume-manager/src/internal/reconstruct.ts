import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod } from '@kubelet-ts/api';
import { VolumeError } from '../errors.js';
import { isMountPoint } from '../mounter.js';
import { PLUGIN_NAMES, podVolumesDir, unescapePluginName } from '../paths.js';
import type { VolumeContext, VolumeState } from './context.js';
import type { VolumePlugin } from './plugins.js';

/** Upstream reconstructVolumes: every volume directory on disk becomes a reconstructed entry; nothing is mounted. */
async function rebuildFromDisk(ctx: VolumeContext, state: VolumeState): Promise<void> {
  const { rootDir } = ctx;
  const uids = await readdir(join(rootDir, 'pods')).catch(() => [] as string[]);
  const mounts = await ctx.mounter.list();
  for (const uid of uids) {
    const pluginDirs = await readdir(podVolumesDir(rootDir, uid)).catch(() => [] as string[]);
    for (const pluginDir of pluginDirs) {
      const names = await readdir(join(podVolumesDir(rootDir, uid), pluginDir)).catch(() => [] as string[]);
      for (const name of names) {
        const entries = state.actual.entriesOf(uid);
        if (entries.has(name)) continue;
        const dir = join(podVolumesDir(rootDir, uid), pluginDir, name);
        const pluginName = unescapePluginName(pluginDir);
        const path = pluginName === PLUGIN_NAMES.csi ? join(dir, 'mount') : dir;
        entries.set(name, { podUID: uid, volumeName: name, pluginName, path, reconstructed: true, lastSyncMs: 0 });
        state.actual.reconstructedUIDs.add(uid);
        ctx.logger.debug('Volume reconstructed from disk', {
          podUID: uid,
          volume: name,
          plugin: pluginName,
          mounted: isMountPoint(mounts, path),
        });
      }
    }
  }
}

/** Rebuilds the actual state from disk once; a failed rebuild (mountinfo unreadable…) is tried again by the next caller. */
export function reconstruct(ctx: VolumeContext, state: VolumeState): Promise<void> {
  state.reconstructed ??= (async () => {
    try {
      await rebuildFromDisk(ctx, state);
    } catch (err) {
      state.reconstructed = undefined;
      throw VolumeError.from(err);
    }
  })();
  return state.reconstructed;
}

/** Marks the pod's reconstructed entries that are still intact as set up, so that nothing is mounted again. */
export async function adoptReconstructed(ctx: VolumeContext, state: VolumeState, pod: Pod): Promise<void> {
  const entries = state.actual.pods.get(pod.metadata.uid);
  // Every pod sync passes here: read mountinfo only while something is still left to adopt.
  if (entries === undefined || ![...entries.values()].some((e) => e.reconstructed)) return;
  const mounts = await ctx.mounter.list();
  for (const volume of pod.spec.volumes ?? []) {
    const entry = entries.get(volume.name);
    if (entry === undefined || !entry.reconstructed) continue;
    let plugin: VolumePlugin;
    try {
      plugin = ctx.plugins.pluginFor(volume);
    } catch {
      continue;
    }
    const mountBacked =
      plugin === ctx.plugins.csi ||
      plugin.name === PLUGIN_NAMES.secret ||
      plugin.name === PLUGIN_NAMES.projected ||
      (plugin.name === PLUGIN_NAMES.emptyDir && volume.emptyDir?.medium === 'Memory');
    const intact = mountBacked
      ? isMountPoint(mounts, entry.path)
      : await lstat(entry.path).then(
          () => true,
          () => false,
        );
    if (intact && entry.pluginName === plugin.name) {
      entry.reconstructed = false;
      // Content volumes still get re-synced on this pod's first sync (atomically, if it changed).
      entry.lastSyncMs = plugin.requiresRemount ? 0 : ctx.clock.now();
    }
  }
}
