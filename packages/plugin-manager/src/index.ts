export { PluginManagerError } from './errors.js';
export type { PluginManagerErrorCode } from './errors.js';
export { PLUGIN_TYPE, createPluginWatcher, pluginsRegistryDir } from './plugin-watcher.js';
export type { PluginWatcher, PluginWatcherOptions } from './plugin-watcher.js';
export type { PluginHandler, RegisteredPlugin } from './types.js';
