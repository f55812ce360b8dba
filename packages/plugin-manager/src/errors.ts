import { defineError } from '@kubelet-ts/common';

export type PluginManagerErrorCode =
  /** A plugin on a registration socket could not be registered (dial or GetInfo failed, refused by its handler…). */
  | 'PLUGIN_REGISTRATION_FAILED'
  /** A plugin's GetInfo answer did not validate. */
  | 'INVALID_PLUGIN_INFO';

/** The one error class of @kubelet-ts/plugin-manager. */
export class PluginManagerError extends defineError<PluginManagerErrorCode>('PluginManagerError', {
  defaultCode: 'PLUGIN_REGISTRATION_FAILED',
}) {}
