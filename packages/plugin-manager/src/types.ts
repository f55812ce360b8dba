/**
 * A consumer of one plugin type (upstream pluginmanager cache.PluginHandler): the CSI driver registry of
 * @kubelet-ts/volume-manager for `CSIPlugin`, later the device manager for `DevicePlugin`.
 */
export interface PluginHandler {
  /** Throws to refuse the plugin; the message is sent back to it in NotifyRegistrationStatus. */
  validatePlugin(name: string, endpoint: string, versions: string[]): void;
  /** Registers a validated plugin; throws (and is not registered) on failure. */
  registerPlugin(name: string, endpoint: string, versions: string[]): Promise<void>;
  /** Called once the plugin's registration socket went away (or was replaced). */
  deregisterPlugin(name: string, endpoint: string): void;
}

/** A plugin registered through its registration socket. */
export interface RegisteredPlugin {
  socketPath: string;
  type: string;
  name: string;
  /** The plugin's service socket (GetInfo's endpoint, or the registration socket when it gave none). */
  endpoint: string;
  supportedVersions: string[];
}
