import type { Clock, Logger } from '@kubelet-ts/common';
import { errorMessage, noopLogger } from '@kubelet-ts/common';
import type { AuthConfig } from '@kubelet-ts/cri-client';
import { CredentialProviderError } from './errors.js';
import type { TrackedAuthConfig } from './keyring.js';
import { createDockerKeyring } from './keyring.js';
import type { DockerConfigProvider } from './node-docker-config.js';
import { createNodeDockerConfigProvider } from './node-docker-config.js';
import type { CredentialProviderPlugin } from './plugin.js';
import type { PullSecret } from './secrets.js';
import { dockerConfigFromSecret, pullSecretName } from './secrets.js';
import { repositoryToPull } from './url-match.js';

export interface CredentialProviderOptions {
  /**
   * The node-wide docker config. Default: createNodeDockerConfigProvider with `rootDirectory`,
   * `clock` and `logger`; null: none.
   */
  nodeDockerConfig?: DockerConfigProvider | null;
  /** The kubelet's --root-dir, searched first for the node's config.json / .dockercfg. */
  rootDirectory?: string;
  /** The exec plugins (loadCredentialProviderPlugins), in the config's order. */
  plugins?: readonly CredentialProviderPlugin[];
  clock?: Clock;
  logger?: Logger;
}

/** What a lookup found: the credentials in the order to try them, and the pull secrets that did not decode. */
export interface CredentialLookup {
  credentials: TrackedAuthConfig[];
  /** One INVALID_SECRET error per pull secret skipped (the others were still used). */
  secretErrors: CredentialProviderError[];
}

/** The kubelet's image pull credentials (upstream image_manager's keyring, built per pull). */
export interface CredentialProvider {
  /**
   * The credentials to try for `image`, in upstream's order: the pod's pull secrets, then the
   * node's docker config, then the plugins; each group most specific registry key first. Empty:
   * pull anonymously. A pull secret that does not decode is logged and skipped.
   */
  credentialsFor(image: string, pullSecrets?: readonly PullSecret[]): Promise<AuthConfig[]>;
  /** As credentialsFor, with each credential's source and the secrets that were skipped. */
  lookup(image: string, pullSecrets?: readonly PullSecret[]): Promise<CredentialLookup>;
}

/** Creates the credential provider: one keyring per source, built per lookup (secrets change per pod). */
export function createCredentialProvider(options: CredentialProviderOptions = {}): CredentialProvider {
  const logger = options.logger ?? noopLogger;
  const node =
    options.nodeDockerConfig === undefined
      ? createNodeDockerConfigProvider({
          logger,
          ...(options.rootDirectory === undefined ? {} : { rootDirectory: options.rootDirectory }),
          ...(options.clock === undefined ? {} : { clock: options.clock }),
        })
      : options.nodeDockerConfig;
  const plugins = options.plugins ?? [];

  const lookup = async (image: string, pullSecrets: readonly PullSecret[] = []): Promise<CredentialLookup> => {
    const repository = repositoryToPull(image);
    const secrets = createDockerKeyring({ logger });
    const secretErrors: CredentialProviderError[] = [];
    for (const secret of pullSecrets) {
      try {
        const config = dockerConfigFromSecret(secret);
        if (config === undefined) continue;
        secrets.add(config, {
          kind: 'secret',
          namespace: secret.metadata?.namespace ?? secret.namespace ?? '',
          name: secret.metadata?.name ?? secret.name ?? '',
          ...(secret.metadata?.uid === undefined ? {} : { uid: secret.metadata.uid }),
        });
      } catch (err) {
        const error = CredentialProviderError.from(err, 'INVALID_SECRET');
        logger.warn('Skipping an image pull secret that does not decode', { secret: pullSecretName(secret), err: errorMessage(error) });
        secretErrors.push(error);
      }
    }
    const nodeKeyring = createDockerKeyring({ logger });
    const pluginKeyring = createDockerKeyring({ logger });
    const [nodeConfig, pluginConfigs] = await Promise.all([
      node?.provide(repository),
      Promise.all(plugins.map(async (plugin) => ({ name: plugin.name, config: await plugin.provide(repository) }))),
    ]);
    if (nodeConfig !== undefined) nodeKeyring.add(nodeConfig, { kind: 'node' });
    // Upstream: one keyring of every plugin's entries, so their keys are ordered together.
    for (const { name, config } of pluginConfigs) pluginKeyring.add(config, { kind: 'plugin', name });
    return {
      credentials: [...secrets.lookup(repository), ...nodeKeyring.lookup(repository), ...pluginKeyring.lookup(repository)],
      secretErrors,
    };
  };

  return {
    lookup,
    async credentialsFor(image, pullSecrets) {
      return (await lookup(image, pullSecrets)).credentials.map((c) => c.auth);
    },
  };
}
