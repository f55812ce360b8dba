import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
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
  return createPluginWatcher({ dir: pluginsRegistryDir(options.rootDir), handlers: options.handlers, clock: options.clock, logger: options.logger });
}

/** Runs the plugin manager until the signal aborts, never rejecting: a failure is logged (plugins then stop registering). */
export async function runPluginManager(plugins: Pick<PluginWatcher, 'run'>, signal: AbortSignal, logger: Logger): Promise<void> {
  await plugins.run(signal).catch((err: unknown) => logger.error('Plugin watcher stopped; CSI drivers will not register', { err: errorMessage(err) }));
}
