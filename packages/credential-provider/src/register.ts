import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Logger, Metrics } from '@kubelet-ts/common';
import { errorMessage } from '@kubelet-ts/common';
import { CredentialProviderError } from './errors.js';
import { createExecPluginRunner } from './exec-runner.js';
import type { CredentialProviderPlugin, PluginRunner } from './plugin.js';
import { createCredentialProviderPlugin } from './plugin.js';
import { loadCredentialProviderConfig } from './plugin-config.js';

export interface LoadCredentialProviderPluginsOptions {
  /** --image-credential-provider-config. */
  configPath: string;
  /** --image-credential-provider-bin-dir. */
  binDir: string;
  /** Default: the real runner (createExecPluginRunner). */
  runner?: PluginRunner;
  clock?: Clock;
  logger?: Logger;
  metrics?: Metrics;
}

const isNotFound = (err: unknown): boolean => (err as { code?: unknown }).code === 'ENOENT';

/**
 * What the kubelet does with --image-credential-provider-config and -bin-dir at start-up
 * (upstream RegisterCredentialProviderPlugins): the bin dir must exist, the config must decode and
 * validate, and every provider's executable must be in the bin dir; then one plugin per provider,
 * in the config's order.
 * @throws CredentialProviderError PLUGIN_NOT_FOUND or INVALID_CONFIG; the kubelet does not start.
 */
export async function loadCredentialProviderPlugins(options: LoadCredentialProviderPluginsOptions): Promise<CredentialProviderPlugin[]> {
  try {
    await stat(options.binDir);
  } catch (err) {
    if (isNotFound(err))
      throw new CredentialProviderError('PLUGIN_NOT_FOUND', `plugin binary directory ${options.binDir} did not exist`, { cause: err });
    throw new CredentialProviderError('PLUGIN_NOT_FOUND', `error inspecting binary directory ${options.binDir}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
  const config = await loadCredentialProviderConfig(options.configPath);
  const runner = options.runner ?? createExecPluginRunner();
  const plugins: CredentialProviderPlugin[] = [];
  for (const spec of config.providers) {
    const binary = join(options.binDir, spec.name);
    try {
      // exec.LookPath: a regular file with an execute bit.
      if (!(await stat(binary)).isFile()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
      await access(binary, constants.X_OK);
    } catch (err) {
      if (isNotFound(err))
        throw new CredentialProviderError('PLUGIN_NOT_FOUND', `plugin binary executable ${binary} did not exist`, { cause: err });
      throw new CredentialProviderError('PLUGIN_NOT_FOUND', `error inspecting binary executable ${binary}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
    plugins.push(
      createCredentialProviderPlugin({
        spec,
        binDir: options.binDir,
        runner,
        ...(options.clock === undefined ? {} : { clock: options.clock }),
        ...(options.logger === undefined ? {} : { logger: options.logger }),
        ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      }),
    );
    options.logger?.debug('Registered credential provider', { provider: spec.name });
  }
  return plugins;
}
