import { mkdir, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Pod, Volume } from '@kubelet-ts/api';
import { z } from 'zod';
import type { CsiNodeClient } from '../csi-client.js';
import { VolumeError } from '../errors.js';
import { isMountPoint } from '../mounter.js';
import { csiEphemeralVolumeHandle, PLUGIN_NAMES, podVolumeDir } from '../paths.js';
import type { CsiDriverRegistry } from '../types.js';
import type { PluginContext, VolumePlugin } from './plugins.js';

const VOL_DATA_FILE = 'vol_data.json';

// What SetUp records next to the mount so that TearDown works after a restart (upstream vol_data.json).
const VolDataSchema = z.looseObject({
  specVolID: z.string(),
  volumeHandle: z.string().min(1),
  driverName: z.string().min(1),
  volumeLifecycleMode: z.string().optional(),
  stagingTargetPath: z.string().optional(),
});
type VolData = z.infer<typeof VolDataSchema>;

export interface CsiPluginContext extends PluginContext {
  drivers: CsiDriverRegistry | undefined;
  clientFor(driverName: string, endpoint: string): CsiNodeClient;
}

const notFound = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * CSI ephemeral inline volumes (upstream csi plugin, Ephemeral lifecycle mode): volume handle
 * `csi-<sha256(podUID+name)>`, target `<pod volume dir>/mount`, vol_data.json next to it.
 * Only NodePublishVolume / NodeUnpublishVolume, whatever the driver's capabilities: upstream never
 * stages inline volumes (csiMountMgr.SetUpAt computes a staging path only for PV sources, and
 * CanDeviceMount is false in Ephemeral mode). A vol_data.json that names a staging path (written
 * by an earlier kubelet-ts) is still unstaged on teardown.
 */
export function csiPlugin(ctx: CsiPluginContext): VolumePlugin & { tearDown(dir: string): Promise<void> } {
  const volumeDir = (pod: Pod, volume: Volume): string => podVolumeDir(ctx.rootDir, pod.metadata.uid, PLUGIN_NAMES.csi, volume.name);

  const client = (driverName: string): CsiNodeClient => {
    const info = ctx.drivers?.get(driverName);
    if (info === undefined)
      throw new VolumeError('CSI_FAILED', `driver name ${driverName} not found in the list of registered CSI drivers`);
    return ctx.clientFor(driverName, info.endpoint);
  };

  const secretsFor = async (pod: Pod, name: string | undefined): Promise<Record<string, string>> => {
    if (name === undefined || name === '') return {};
    const secret = ctx.source === undefined ? undefined : await ctx.source.getSecret(pod.metadata.namespace ?? 'default', name);
    if (secret === undefined)
      throw new VolumeError(
        'SOURCE_NOT_FOUND',
        `fetching NodePublishSecretRef ${pod.metadata.namespace ?? 'default'}/${name} failed: secret ${JSON.stringify(name)} not found`,
      );
    return Object.fromEntries(Object.entries(secret.data).map(([k, v]) => [k, v.toString('utf8')]));
  };

  return {
    name: PLUGIN_NAMES.csi,
    path: (pod, volume) => join(volumeDir(pod, volume), 'mount'),
    requiresRemount: false,
    readOnly: (volume) => volume.csi?.readOnly === true,
    async setUp(pod, volume) {
      const source = volume.csi;
      if (source === undefined) throw new VolumeError('INVALID_VOLUME', 'csi volume source missing');
      const dir = volumeDir(pod, volume);
      const target = join(dir, 'mount');
      if (isMountPoint(await ctx.mounter.list(), target)) return;
      const node = client(source.driver);
      const volumeHandle = csiEphemeralVolumeHandle(pod.metadata.uid, volume.name);
      const volumeContext: Record<string, string> = { ...(source.volumeAttributes ?? {}) };
      // Upstream getPodInfoAttrs: pod identity, and the ephemeral marker, only for podInfoOnMount drivers.
      if (ctx.drivers?.get(source.driver)?.podInfoOnMount === true) {
        volumeContext['csi.storage.k8s.io/pod.name'] = pod.metadata.name;
        volumeContext['csi.storage.k8s.io/pod.namespace'] = pod.metadata.namespace ?? 'default';
        volumeContext['csi.storage.k8s.io/pod.uid'] = pod.metadata.uid;
        volumeContext['csi.storage.k8s.io/serviceAccount.name'] = pod.spec.serviceAccountName ?? 'default';
        volumeContext['csi.storage.k8s.io/ephemeral'] = 'true';
      }
      const secrets = await secretsFor(pod, source.nodePublishSecretRef?.name);
      const volumeCapability = {
        mount: { fsType: source.fsType ?? '', mountFlags: [] },
        accessMode: { mode: 'SINGLE_NODE_WRITER' as const },
      };

      await mkdir(dir, { recursive: true, mode: 0o750 });
      const volData: VolData = {
        specVolID: volume.name,
        volumeHandle,
        driverName: source.driver,
        volumeLifecycleMode: 'Ephemeral',
      };
      await writeFile(join(dir, VOL_DATA_FILE), JSON.stringify(volData));

      await node.nodePublishVolume({
        volumeId: volumeHandle,
        targetPath: target,
        volumeCapability,
        readonly: source.readOnly === true,
        secrets,
        volumeContext,
      });
    },
    async tearDown(dir) {
      const raw = await readFile(join(dir, VOL_DATA_FILE), 'utf8').catch((err: unknown) => {
        if (notFound(err)) return undefined;
        throw err;
      });
      if (raw === undefined) {
        // Never set up (or already torn down): nothing the driver knows about.
        await rm(dir, { recursive: true, force: true });
        return;
      }
      const parsed = VolDataSchema.safeParse(JSON.parse(raw));
      if (!parsed.success)
        throw new VolumeError('INVALID_OBJECT', `${join(dir, VOL_DATA_FILE)}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      const data = parsed.data;
      const node = client(data.driverName);
      const target = join(dir, 'mount');
      await node.nodeUnpublishVolume({ volumeId: data.volumeHandle, targetPath: target });
      if (data.stagingTargetPath !== undefined) {
        await node.nodeUnstageVolume({ volumeId: data.volumeHandle, stagingTargetPath: data.stagingTargetPath });
        // <root>/plugins/kubernetes.io/csi/<driver>/<hash>: globalmount and its parent.
        await rmdir(data.stagingTargetPath).catch(() => undefined);
        await rmdir(join(data.stagingTargetPath, '..')).catch(() => undefined);
      }
      if (isMountPoint(await ctx.mounter.list(), target))
        throw new VolumeError('CSI_FAILED', `${target} is still mounted after NodeUnpublishVolume`);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
