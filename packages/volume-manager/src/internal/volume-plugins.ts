import type { Volume } from '@kubelet-ts/api';
import type { CsiNodeClient, CsiNodeClientOptions } from '../csi-client.js';
import { VolumeError } from '../errors.js';
import type { CsiDriverRegistry } from '../types.js';
import { csiPlugin } from './csi-plugin.js';
import type { PluginContext, VolumePlugin } from './plugins.js';
import { configMapPlugin, downwardAPIPlugin, emptyDirPlugin, hostPathPlugin, projectedPlugin, secretPlugin } from './plugins.js';

/** Upstream VolumePluginMgr, reduced to the in-tree plugins the kubelet has and CSI. */
export interface VolumePlugins {
  /** The plugin of the volume's type; INVALID_VOLUME when there is none. */
  pluginFor(volume: Volume): VolumePlugin;
  readonly emptyDir: VolumePlugin;
  readonly csi: VolumePlugin & { tearDown(dir: string): Promise<void> };
  /** Closes the CSI clients made so far. */
  closeClients(): void;
}

export interface VolumePluginsOptions {
  csiDrivers: CsiDriverRegistry | undefined;
  csiClientFactory: (options: CsiNodeClientOptions) => CsiNodeClient;
}

function volumeType(volume: Volume): string {
  for (const [key, value] of Object.entries(volume)) if (key !== 'name' && value !== undefined) return key;
  return 'unknown';
}

export function createVolumePlugins(ctx: PluginContext, options: VolumePluginsOptions): VolumePlugins {
  const csiClients = new Map<string, CsiNodeClient>();
  const csi = csiPlugin({
    ...ctx,
    drivers: options.csiDrivers,
    clientFor(driverName, endpoint) {
      // Keyed by endpoint too: a driver that registers again on another socket gets a new client.
      const key = `${driverName}\n${endpoint}`;
      let client = csiClients.get(key);
      if (client === undefined) {
        client = options.csiClientFactory({ endpoint });
        csiClients.set(key, client);
      }
      return client;
    },
  });
  const emptyDir = emptyDirPlugin(ctx);
  const plugins: Record<string, VolumePlugin> = {
    emptyDir,
    hostPath: hostPathPlugin(),
    configMap: configMapPlugin(ctx),
    secret: secretPlugin(ctx),
    downwardAPI: downwardAPIPlugin(ctx),
    projected: projectedPlugin(ctx),
    csi,
  };
  return {
    pluginFor(volume) {
      const type = volumeType(volume);
      const plugin = plugins[type];
      if (plugin === undefined) throw new VolumeError('INVALID_VOLUME', `volume type ${type} is not supported`);
      return plugin;
    },
    emptyDir,
    csi,
    closeClients() {
      for (const client of csiClients.values()) client.close();
      csiClients.clear();
    },
  };
}
