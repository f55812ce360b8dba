import type { Clock, Logger } from '@kubelet-ts/common';
import type { PluginHandler, PluginWatcher } from '@kubelet-ts/plugin-manager';
import { createPluginWatcher, pluginsRegistryDir } from '@kubelet-ts/plugin-manager';

export interface KubeletPluginManagerOptions {
  rootDir: string;
  /** Handlers by plugin type, registered by the wiring: `{ CSIPlugin: csiDrivers }` (device plugins later). */
  handlers: Record<string, PluginHandler>;
  clock: Clock;
  logger: Logger;
}

/** The kubelet's plugin manager: the registration sockets in `<root-dir>/plugins_registry`, handed to `handlers` by type. */
export function createKubeletPluginManager(options: KubeletPluginManagerOptions): PluginWatcher {
  return createPluginWatcher({
    dir: pluginsRegistryDir(options.rootDir),
    handlers: options.handlers,
    clock: options.clock,
    logger: options.logger,
  });
}
