export type PluginManagerErrorCode =
  /** A plugin on a registration socket could not be registered (dial or GetInfo failed, refused by its handler…). */
  | 'PLUGIN_REGISTRATION_FAILED'
  /** A plugin's GetInfo answer did not validate. */
  | 'INVALID_PLUGIN_INFO';

/** The one error class of @kubelet-ts/plugin-manager. */
export class PluginManagerError extends Error {
  override readonly name = 'PluginManagerError';
  readonly code: PluginManagerErrorCode;

  constructor(code: PluginManagerErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}

export function isPluginManagerError(err: unknown): err is PluginManagerError {
  return err instanceof PluginManagerError || (err instanceof Error && err.name === 'PluginManagerError' && typeof (err as { code?: unknown }).code === 'string');
}
