import { chmod, mkdir, rm } from 'node:fs/promises';
import os from 'node:os';
import type { NodeResources, Pod, Volume } from '@kubelet-ts/api';
import { quantityValue } from '@kubelet-ts/api';
import { writeAtomic } from '../atomic-writer.js';
import { VolumeError } from '../errors.js';
import type { Mounter } from '../mounter.js';
import { isMountPoint } from '../mounter.js';
import type { PluginName } from '../paths.js';
import { PLUGIN_NAMES, podVolumeDir } from '../paths.js';
import type { ConfigMapSecretSource, TokenSource } from '../types.js';
import { checkHostPathType } from './hostpath.js';
import { ownedFileMode, podVolumeOwnership, setVolumeOwnership } from './ownership.js';
import type { Payload, PayloadContext } from './payloads.js';
import { configMapPayload, downwardAPIPayload, projectedPayload, secretPayload } from './payloads.js';

export interface PluginContext {
  rootDir: string;
  mounter: Mounter;
  source: ConfigMapSecretSource | undefined;
  tokenSource: TokenSource | undefined;
  getNodeAllocatable: () => NodeResources;
  now: () => number;
}

/** One volume plugin (upstream VolumePlugin + Mounter/Unmounter, reduced to what the kubelet calls). */
export interface VolumePlugin {
  name: PluginName;
  /** The host path the volume lives at. */
  path(pod: Pod, volume: Volume): string;
  /** Idempotent: sets the volume up, or refreshes its content. */
  setUp(pod: Pod, volume: Volume): Promise<void>;
  /** configMap/secret/downwardAPI/projected: content re-synced periodically (upstream RequiresRemount). */
  requiresRemount: boolean;
  /** Mounted read-only into containers whatever the volumeMount says (upstream: API data volumes). */
  readOnly(volume: Volume): boolean;
}

/**
 * The size of a memory-backed volume, as upstream calculateEmptyDirMemorySize: node allocatable
 * memory, lowered to the pod's memory limit when every container declares one, lowered again to
 * the volume's sizeLimit when that is smaller.
 */
export function memoryVolumeSize(ctx: PluginContext, pod: Pod, sizeLimit: string | number | undefined): number {
  const allocatable = ctx.getNodeAllocatable().memoryBytes;
  // No memory left for pods (reservations over capacity) would mean size=0, an unbounded tmpfs: the machine's memory instead.
  let size = allocatable > 0 ? allocatable : os.totalmem();
  const limits = pod.spec.containers.map((c) => (c.resources?.limits as Record<string, string | number> | undefined)?.memory);
  if (limits.length > 0 && limits.every((l) => l !== undefined)) {
    const podLimit = limits.reduce<number>((sum, l) => sum + quantityValue(l as string | number), 0);
    if (podLimit > 0 && podLimit <= size) size = podLimit;
  }
  if (sizeLimit !== undefined) {
    const volumeLimit = quantityValue(sizeLimit);
    if (volumeLimit > 0 && volumeLimit < size) size = volumeLimit;
  }
  return size;
}

const mountTmpfs = async (ctx: PluginContext, dir: string, options: string[]): Promise<void> => {
  if (isMountPoint(await ctx.mounter.list(), dir)) return;
  await ctx.mounter.mount('tmpfs', dir, 'tmpfs', options);
};

export function emptyDirPlugin(ctx: PluginContext): VolumePlugin {
  const path = (pod: Pod, volume: Volume): string => podVolumeDir(ctx.rootDir, pod.metadata.uid, PLUGIN_NAMES.emptyDir, volume.name);
  return {
    name: PLUGIN_NAMES.emptyDir,
    path,
    requiresRemount: false,
    readOnly: () => false,
    async setUp(pod, volume) {
      const dir = path(pod, volume);
      const medium = volume.emptyDir?.medium ?? '';
      await mkdir(dir, { recursive: true, mode: 0o750 });
      if (medium === 'Memory') {
        await mountTmpfs(ctx, dir, [`size=${memoryVolumeSize(ctx, pod, volume.emptyDir?.sizeLimit)}`]);
      } else if (medium !== '') {
        throw new VolumeError('INVALID_VOLUME', `emptyDir medium ${JSON.stringify(medium)} is not supported`);
      }
      // Upstream: emptyDir is world-writable (0777) so that any container user can write to it.
      await chmod(dir, 0o777);
      const ownership = podVolumeOwnership(pod);
      if (ownership !== undefined) await setVolumeOwnership(dir, ownership, false);
    },
  };
}

export function hostPathPlugin(): VolumePlugin {
  return {
    name: PLUGIN_NAMES.hostPath,
    path: (_pod, volume) => volume.hostPath?.path ?? '',
    requiresRemount: false,
    readOnly: () => false,
    async setUp(_pod, volume) {
      const source = volume.hostPath;
      if (source === undefined || source.path === '') throw new VolumeError('INVALID_VOLUME', 'hostPath.path is required');
      await checkHostPathType(source.path, source.type);
    },
  };
}

/** configMap, secret, downwardAPI, projected: a wrapped emptyDir (tmpfs for secret and projected) filled by the atomic writer. */
function payloadPlugin(
  ctx: PluginContext,
  name: PluginName,
  tmpfs: boolean,
  build: (pctx: PayloadContext, volume: Volume) => Promise<Payload>,
): VolumePlugin {
  const path = (pod: Pod, volume: Volume): string => podVolumeDir(ctx.rootDir, pod.metadata.uid, name, volume.name);
  return {
    name,
    path,
    requiresRemount: true,
    readOnly: () => true,
    async setUp(pod, volume) {
      const dir = path(pod, volume);
      // Build first: a missing object fails SetUp before anything is created.
      const payload = await build(
        { pod, source: ctx.source, tokenSource: ctx.tokenSource, nodeAllocatable: ctx.getNodeAllocatable() },
        volume,
      );
      await mkdir(dir, { recursive: true, mode: 0o750 });
      // The wrapped emptyDir's root, as upstream: 0777 on disk, a tmpfs's own 1777 in memory (any
      // container user reaches the files; the files' modes decide who reads them).
      if (tmpfs) await mountTmpfs(ctx, dir, ['mode=1777', `size=${memoryVolumeSize(ctx, pod, undefined)}`]);
      else await chmod(dir, 0o777);
      const ownership = podVolumeOwnership(pod);
      if (ownership === undefined) {
        await writeAtomic(dir, payload, { nowMs: ctx.now() });
        return;
      }
      // The modes ownership gives are the payload's own, so an unchanged object is not rewritten.
      for (const file of payload.values()) file.mode = ownedFileMode(file.mode ?? 0o644, true);
      await writeAtomic(dir, payload, { nowMs: ctx.now(), beforeSwap: (generation) => setVolumeOwnership(generation, ownership, true) });
      await setVolumeOwnership(dir, { ...ownership, onRootMismatch: true }, true);
    },
  };
}

export const configMapPlugin = (ctx: PluginContext): VolumePlugin =>
  payloadPlugin(ctx, PLUGIN_NAMES.configMap, false, (p, v) =>
    configMapPayload(p, { name: v.configMap?.name, items: v.configMap?.items, optional: v.configMap?.optional }, v.configMap?.defaultMode),
  );

export const secretPlugin = (ctx: PluginContext): VolumePlugin =>
  payloadPlugin(ctx, PLUGIN_NAMES.secret, true, (p, v) =>
    secretPayload(p, { name: v.secret?.secretName, items: v.secret?.items, optional: v.secret?.optional }, v.secret?.defaultMode),
  );

export const downwardAPIPlugin = (ctx: PluginContext): VolumePlugin =>
  payloadPlugin(ctx, PLUGIN_NAMES.downwardAPI, false, async (p, v) =>
    downwardAPIPayload(p, v.downwardAPI?.items, v.downwardAPI?.defaultMode),
  );

export const projectedPlugin = (ctx: PluginContext): VolumePlugin =>
  payloadPlugin(ctx, PLUGIN_NAMES.projected, true, (p, v) => projectedPayload(p, v.projected?.sources, v.projected?.defaultMode));

/** Removes a volume directory that holds no mount any more. Refuses (rather than deleting through a mount) when one is left. */
export async function removeVolumeDir(mounter: Mounter, dir: string): Promise<void> {
  const left = (await mounter.list()).filter((m) => m.mountPoint === dir || m.mountPoint.startsWith(`${dir}/`));
  if (left.length > 0)
    throw new VolumeError('MOUNT_FAILED', `refusing to remove ${dir}: still mounted at ${left.map((m) => m.mountPoint).join(', ')}`);
  await rm(dir, { recursive: true, force: true });
}

/** Unmounts everything at or below `dir`, deepest first. */
export async function unmountAllUnder(mounter: Mounter, dir: string): Promise<void> {
  const mounts = (await mounter.list())
    .map((m) => m.mountPoint)
    .filter((p) => p === dir || p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const target of mounts) await mounter.unmount(target);
}
