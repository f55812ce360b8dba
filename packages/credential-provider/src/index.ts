export {
  CREDENTIAL_PROVIDER_API_VERSIONS,
  CREDENTIAL_PROVIDER_CONFIG_API_VERSIONS,
  CREDENTIAL_PROVIDER_CONFIG_KIND,
  DOCKERCFG_KEY,
  DOCKER_CONFIG_JSON_KEY,
  METRIC_PLUGIN_DURATION,
  METRIC_PLUGIN_ERRORS,
  NODE_DOCKER_CONFIG_CACHE_LIFETIME_MS,
  PLUGIN_CACHE_PURGE_INTERVAL_MS,
  PLUGIN_EXEC_TIMEOUT_MS,
  SECRET_TYPE_DOCKERCFG,
  SECRET_TYPE_DOCKER_CONFIG_JSON,
} from './constants.js';
export { CredentialProviderError, formatConfigIssue } from './errors.js';
export type { CredentialProviderConfigIssue, CredentialProviderErrorCode } from './errors.js';
export { decodeAuthField, parseDockerConfigJson, parseDockercfg } from './docker-config.js';
export type { DockerConfig, DockerConfigEntry } from './docker-config.js';
export { isDefaultRegistryMatch, repositoryToPull, urlsMatch } from './url-match.js';
export { createDockerKeyring } from './keyring.js';
export type { CredentialSource, DockerKeyring, TrackedAuthConfig } from './keyring.js';
export { dockerConfigFromSecret, pullSecretName } from './secrets.js';
export type { PullSecret } from './secrets.js';
export { createNodeDockerConfigProvider, nodeDockerConfigPaths } from './node-docker-config.js';
export type { DockerConfigProvider, NodeDockerConfigOptions } from './node-docker-config.js';
export { loadCredentialProviderConfig, parseCredentialProviderConfig } from './plugin-config.js';
export type { CredentialProviderConfig, CredentialProviderSpec } from './plugin-config.js';
export { PluginCacheKeyType, createCredentialProviderPlugin } from './plugin.js';
export type {
  CredentialProviderPlugin,
  CredentialProviderPluginOptions,
  PluginExecRequest,
  PluginExecResult,
  PluginRunner,
} from './plugin.js';
export { createExecPluginRunner } from './exec-runner.js';
export { loadCredentialProviderPlugins } from './register.js';
export type { LoadCredentialProviderPluginsOptions } from './register.js';
export { createCredentialProvider } from './credential-provider.js';
export type { CredentialLookup, CredentialProvider, CredentialProviderOptions } from './credential-provider.js';
